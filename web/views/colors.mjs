// Colours shared by the views: a white-to-blue ramp for weights and one hue per head.
export function weightColor(w) {
  const t = Math.max(0, Math.min(1, w));
  const r = Math.round(255 - t * (255 - 23)), g = Math.round(255 - t * (255 - 78)), b = Math.round(255 - t * (255 - 180));
  return `rgb(${r},${g},${b})`;
}

export function headColor(h, n) {
  return `hsl(${Math.round((360 * h) / Math.max(1, n))}, 70%, 45%)`;
}

// A diverging ramp for signed numbers in [-1, 1]: blue below zero, white at zero, red above.
export function signedColor(x) {
  const t = Math.max(-1, Math.min(1, x));
  const a = Math.abs(t);
  const [r, g, b] = t < 0 ? [42, 111, 219] : [200, 60, 50];
  return `rgb(${Math.round(255 - a * (255 - r))},${Math.round(255 - a * (255 - g))},${Math.round(255 - a * (255 - b))})`;
}

// The two ramps tabulated (256 steps each) for painting whole matrices pixel by pixel: at 512
// tokens a map has 262,144 cells, too many for one fillRect and colour string each.
const rampTable = (color, from) => {
  const t = new Uint8Array(256 * 3);
  for (let i = 0; i < 256; i++) t.set(color(from + (i / 255) * (1 - from)).match(/\d+/g).map(Number), i * 3);
  return t;
};
const WEIGHTS = rampTable(weightColor, 0);
const SIGNED = rampTable(signedColor, -1);
const step = (t) => Math.round(Math.max(0, Math.min(1, t)) * 255) * 3;

// Paints a [rows, cols] matrix into `canvas`, one pixel per cell (the canvas is resized to
// cols x rows): value(i, c) in [0, 1] on the weight ramp (kind 'weights'), or in [-1, 1] on the
// signed one; grey(i, c) true marks a masked cell.
export function paintPixels(canvas, rows, cols, value, { kind = 'weights', grey = null } = {}) {
  canvas.width = cols;
  canvas.height = rows;
  const ctx = canvas.getContext('2d');
  const image = ctx.createImageData(cols, rows);
  const px = image.data;
  const ramp = kind === 'weights' ? WEIGHTS : SIGNED;
  for (let i = 0, o = 0; i < rows; i++) {
    for (let c = 0; c < cols; c++, o += 4) {
      if (grey?.(i, c)) { px[o] = 201; px[o + 1] = 206; px[o + 2] = 214; px[o + 3] = 255; continue; }
      const v = value(i, c);
      const s = step(kind === 'weights' ? v : (v + 1) / 2);
      px[o] = ramp[s]; px[o + 1] = ramp[s + 1]; px[o + 2] = ramp[s + 2]; px[o + 3] = 255;
    }
  }
  ctx.putImageData(image, 0, 0);
  return canvas;
}

// The largest |x| of an array (finite values only), at least 1e-6: a loop, not Math.max(...xs),
// which runs out of stack for a few hundred thousand arguments.
export function largestMagnitude(xs) {
  let top = 1e-6;
  for (const x of xs) { const a = Math.abs(x); if (a > top && Number.isFinite(a)) top = a; }
  return top;
}
