// iTerm2's inline images (OSC 1337 File=): the PNG itself, sized in cells, drawn at the cursor.
// https://iterm2.com/documentation-images.html
export function itermImage(png: Buffer, cols: number, rows: number): string {
  const args = `inline=1;size=${png.length};width=${cols};height=${rows};preserveAspectRatio=1`;
  return `\x1b]1337;File=${args}:${png.toString('base64')}\x07`;
}
