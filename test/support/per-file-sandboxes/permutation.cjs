// The permutation number N (0 to 5 for three) of a list sorted by path: both runners' order of the proof's files, so that
// runs 1 to 6 try every order of the three, whatever either runner's own shuffle does.

/** `items` sorted by `pathOf`, then taken in the order the number `order` names. */
function permuted(items, order, pathOf) {
  const byPath = [...items].sort((a, b) => (pathOf(a) < pathOf(b) ? -1 : 1));
  const ordered = [];
  let rest = order;
  while (byPath.length > 0) {
    ordered.push(...byPath.splice(rest % byPath.length, 1));
    rest = Math.floor(rest / (byPath.length + 1));
  }
  return ordered;
}

module.exports = { permuted };
