// jest's order of the proof's files: the permutation FILE_ORDER (0 to 5) names, so that runs try every order of the three.
const Sequencer = require("@jest/test-sequencer").default;

class PermutedOrder extends Sequencer {
  sort(tests) {
    const byPath = [...tests].sort((a, b) => (a.path < b.path ? -1 : 1));
    const ordered = [];
    let rest = Number(process.env.FILE_ORDER ?? 0);
    while (byPath.length > 0) {
      ordered.push(...byPath.splice(rest % byPath.length, 1));
      rest = Math.floor(rest / (byPath.length + 1));
    }
    return ordered;
  }
}

module.exports = PermutedOrder;
