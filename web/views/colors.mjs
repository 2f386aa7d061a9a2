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
