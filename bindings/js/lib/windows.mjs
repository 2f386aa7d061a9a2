// Overflowing windows over a long sequence, as the Rust `tokenizers` library's Encoding.truncate
// cuts one with a stride (right side): windows of `room` tokens starting 0, room - stride,
// 2 (room - stride), ..., the last one the first to reach the end. Consecutive windows share
// `stride` tokens, so an answer cut by one boundary is whole in a neighbour.

/** [[from, to)] token ranges of a sequence of n tokens; needs 0 <= stride < room. */
export function strideWindows(n, room, stride) {
  const windows = [];
  for (let from = 0; ; from += room - stride) {
    const to = Math.min(from + room, n);
    windows.push([from, to]);
    if (to === n) return windows;
  }
}
