// Colours shared by the views: a white-to-blue ramp for weights and one hue per head.
export function weightColor(w) {
  const t = Math.max(0, Math.min(1, w));
  const r = Math.round(255 - t * (255 - 23)), g = Math.round(255 - t * (255 - 78)), b = Math.round(255 - t * (255 - 180));
  return `rgb(${r},${g},${b})`;
}

export function headColor(h, n) {
  return `hsl(${Math.round((360 * h) / Math.max(1, n))}, 70%, 45%)`;
}
