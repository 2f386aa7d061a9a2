// Output helpers of the command line: JSON for scripts (typed arrays as plain arrays), aligned
// text for people.

/** Typed arrays -> arrays, recursively, so JSON.stringify writes numbers lists. */
export const plain = (x) => (ArrayBuffer.isView(x) ? Array.from(x) : Array.isArray(x) ? x.map(plain) : x && typeof x === 'object'
  ? Object.fromEntries(Object.entries(x).map(([k, v]) => [k, plain(v)])) : x);

export const json = (value) => `${JSON.stringify(plain(value))}\n`;

/** Rows of cells -> lines with columns padded to their widest cell. */
export function table(rows, indent = '  ') {
  const widths = [];
  for (const row of rows) row.forEach((cell, i) => { widths[i] = Math.max(widths[i] ?? 0, String(cell).length); });
  return rows.map((row) => indent + row.map((cell, i) => (i === row.length - 1 ? String(cell) : String(cell).padEnd(widths[i]))).join('  ')).join('\n');
}

/** 12345678 -> '12.3 M'. */
export function count(n) {
  if (n >= 1e9) return `${(n / 1e9).toFixed(2)} G`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)} M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)} k`;
  return String(n);
}

/** The first values of a vector and its length: '[0.0123, -0.2100, ... ] (384 values)'. */
export function preview(v, shown = 6) {
  const head = Array.from(v.subarray(0, shown), (x) => x.toFixed(4)).join(', ');
  return `[${head}${v.length > shown ? ', ...' : ''}] (${v.length} values)`;
}

/** A one-line text for a table cell: newlines shown as ⏎, long texts cut with …. */
export function short(text, width = 48) {
  const one = text.replace(/\n/g, '⏎');
  return one.length > width ? `${one.slice(0, width - 1)}…` : one;
}

/** A mistake in the command line (exit code 2, with a pointer to --help). */
export class UsageError extends Error {}
