// The exported PNG: the heatmap with a title band (model, view, layer, head) and the input text,
// so a picture saved today still says what it shows.
export function exportPng(heatmap, title, subtitle) {
  const scale = heatmap.width / Math.max(1, heatmap.getBoundingClientRect().width || heatmap.width);
  const band = Math.round(48 * scale);
  const out = document.createElement('canvas');
  out.width = heatmap.width;
  out.height = heatmap.height + band;
  const ctx = out.getContext('2d');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, out.width, out.height);
  ctx.fillStyle = '#1b1f24';
  ctx.textBaseline = 'top';
  const fitText = (text, font, y) => {
    ctx.font = font;
    let t = text;
    while (t.length > 4 && ctx.measureText(t).width > out.width - 16 * scale) t = `${t.slice(0, -2)}`;
    ctx.fillText(t === text ? t : `${t}…`, 8 * scale, y);
  };
  fitText(title, `600 ${Math.round(14 * scale)}px system-ui, sans-serif`, 6 * scale);
  ctx.fillStyle = '#5b6570';
  fitText(subtitle, `${Math.round(12 * scale)}px system-ui, sans-serif`, 26 * scale);
  ctx.drawImage(heatmap, 0, band);
  return out.toDataURL('image/png');
}
