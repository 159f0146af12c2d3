/**
 * A QR code as inline SVG, no script and no image request: the matrix from qrcode-generator
 * (the encoding, error correction and masking), drawn here as one path of dark squares.
 */
import qrcode from 'qrcode-generator';
import { html, Html } from '../../http/html.js';

/** `text` as a QR code (error correction M), `label` its accessible name. */
export function qrSvg(text: string, label: string): Html {
  const code = qrcode(0, 'M');
  code.addData(text);
  code.make();
  const size = code.getModuleCount();
  const margin = 4;
  let path = '';
  for (let row = 0; row < size; row++)
    for (let column = 0; column < size; column++) if (code.isDark(row, column)) path += `M${column + margin},${row + margin}h1v1h-1z`;
  const box = size + 2 * margin;
  return html`<svg class="qr" role="img" aria-label="${label}" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${box} ${box}" shape-rendering="crispEdges"><rect width="${box}" height="${box}" fill="#fff"/><path fill="#000" d="${new Html(path)}"/></svg>`;
}
