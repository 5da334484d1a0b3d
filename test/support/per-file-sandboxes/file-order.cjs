// jest's order of the proof's files: the permutation FILE_ORDER (0 to 5) names (permutation.cjs).
const Sequencer = require("@jest/test-sequencer").default;
const { permuted } = require("./permutation.cjs");

class PermutedOrder extends Sequencer {
  sort(tests) {
    return permuted(tests, Number(process.env.FILE_ORDER ?? 0), (test) => test.path);
  }
}

module.exports = PermutedOrder;
