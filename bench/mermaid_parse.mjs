// Parse Mermaid blocks with the real Mermaid library and count what it built.
//   (cd /tmp/mm && npm install mermaid jsdom) && cp bench/mermaid_parse.mjs /tmp/mm/ &&
//   node /tmp/mm/mermaid_parse.mjs blocks.json
// (an ES module finds its packages beside itself, not through NODE_PATH)
// blocks.json: [[where, text], ...] as bench/mermaid_check.py writes it. Prints one line per
// block Mermaid refuses, or whose boxes or arrows differ from the lines that declare them.
import fs from 'fs';
import { JSDOM } from 'jsdom';
const dom = new JSDOM('<!doctype html><html><body></body></html>');
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const mermaid = (await import('mermaid')).default;
mermaid.initialize({ startOnLoad: false, securityLevel: 'strict' });
const blocks = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
let bad = 0;
for (const [where, text] of blocks) {
  try {
    const diagram = await mermaid.mermaidAPI.getDiagramFromText(text);
    const vertices = diagram.db.getVertices();
    const boxes = vertices instanceof Map ? vertices.size : Object.keys(vertices).length;
    const arrows = diagram.db.getEdges().length;
    const lines = text.split('\n');
    const wantBoxes = lines.filter((l) => l.includes('["')).length;
    const wantArrows = lines.filter((l) => l.includes('-->')).length;
    if (boxes !== wantBoxes || arrows !== wantArrows) {
      bad++;
      console.log(`MISMATCH ${where}: ${boxes}/${wantBoxes} boxes, ${arrows}/${wantArrows} arrows`);
    }
  } catch (error) {
    bad++;
    console.log(`REFUSED ${where}: ${String(error.message || error).split('\n')[0]}`);
  }
}
console.log(`${blocks.length} blocks, ${bad} refused or changed`);
