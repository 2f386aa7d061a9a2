// Batches without most of their padding. A padded batch runs every text at the length of its
// longest: the eight sentences of bench/native.mjs (6 to 46 tokens) run 368 token rows for 170
// real ones. The rows of a batch are independent — every matrix product computes each row alone,
// bit for bit whatever the other rows (kernels_test, RowResultDoesNotDependOnTheOtherRows), and a
// padded key gets -inf before the softmax, weight exactly 0 — so texts of similar lengths can run
// as separate calls with the same results, bit for bit (tests/js/length-groups.test.mjs). Each
// call costs more than its rows (the fixed part of a forward pass, and at a few rows the weights
// streamed from memory once per call): CALL_ROWS token rows, so the texts sorted by length are cut
// where a cut saves more padded rows than that. sentence-transformers sorts its batches by length
// for the same reason; Hugging Face's pipelines and transformers.js pad each batch to its longest.

/** What one more forward call costs, in token rows. */
export const CALL_ROWS = 8;

/**
 * The indices of `lengths` in groups of at most maxItems, sorted by length, cut where the total
 * of (group size x its longest length + CALL_ROWS) is smallest: [[index, ...], ...]. A group of
 * texts with no tokens alone cannot run (the engine has no row to run), so those join the group
 * after them; only a batch of nothing but empty texts gives such a group.
 */
export function lengthGroups(lengths, maxItems, callRows = CALL_ROWS) {
  const order = lengths.map((_, i) => i).sort((a, b) => lengths[a] - lengths[b] || a - b);
  const n = order.length;
  const cost = new Float64Array(n + 1).fill(Infinity);
  const cut = new Int32Array(n + 1);
  cost[0] = 0;
  for (let j = 1; j <= n; j++) {
    const longest = lengths[order[j - 1]];
    if (longest === 0 && j < n && lengths[order[n - 1]] > 0) continue;  // no group of empty texts alone
    for (let i = Math.max(0, j - maxItems); i < j; i++) {
      const c = cost[i] + (j - i) * longest + callRows;
      if (c < cost[j]) { cost[j] = c; cut[j] = i; }
    }
  }
  if (cost[n] === Infinity) {  // more empty texts than fit one group: plain slices, as before
    const groups = [];
    for (let i = 0; i < n; i += maxItems) groups.push(order.slice(i, i + maxItems));
    return groups;
  }
  const groups = [];
  for (let j = n; j > 0; j = cut[j]) groups.unshift(order.slice(cut[j], j));
  return groups;
}

/**
 * Runs encoded sequences (tokenizer.encodeOne) in length groups: run(batch, indices) gets each
 * group's padded batch (tokenizer.padBatch) and returns one result per sequence of it; the results
 * come back in the sequences' order.
 */
export function runInLengthGroups(tokenizer, sequences, maxItems, run) {
  const out = new Array(sequences.length);
  for (const group of lengthGroups(sequences.map((s) => s.length), maxItems)) {
    const results = run(tokenizer.padBatch(group.map((i) => sequences[i])), group);
    group.forEach((i, k) => { out[i] = results[k]; });
  }
  return out;
}
