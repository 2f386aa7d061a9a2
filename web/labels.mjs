// Axis labels for text tokens: the piece of the user's text each token covers (so GPT-2's
// byte-level "Ġthe" reads "the"), the token itself for special tokens ([CLS], <|endoftext|>) and
// WordPiece continuations ("##s"), and a visible mark for pieces that are only whitespace.
export function tokenLabels(text, tokens, offsets) {
  return tokens.map((token, i) => {
    const [start, end] = offsets?.[i] ?? [0, 0];
    if (token.startsWith('##') || end <= start) return token.replace(/^Ġ/, '').replace(/Ċ/g, '↵') || token;
    const piece = text.slice(start, end);
    const trimmed = piece.trim();
    return trimmed || (piece.includes('\n') ? '↵' : '␣');
  });
}

/** The hover text of one weight: pos 3 "the" → pos 1 "cat": 0.41 */
export function hoverText(q, rowLabel, k, colLabel, weight) {
  return `pos ${q} "${rowLabel}" → pos ${k} "${colLabel}": ${weight.toFixed(weight >= 0.01 || weight === 0 ? 2 : 4)}`;
}
