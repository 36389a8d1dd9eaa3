// The attention view's own colours for what Python sends, for tests/test_colour_in_browser.py (not a test file
// itself: `node --test tests/js` runs only *.test.mjs). Reads a JSON list on stdin, each item either
// {stops, t: [...]}: colourAt(stops, t) for each t (the ramp), or {stops, masked, shades: [...]}: the CSS colour
// shadeColours gives each shade (how the view fills a payload's cells). Writes the answers as one JSON list.
import { readFileSync } from "node:fs";
import { colourAt, shadeColours } from "../../ui/view/view_core.mjs";

const asked = JSON.parse(readFileSync(0, "utf8"));
const drawn = asked.map((item) => {
  if (item.t) return item.t.map((t) => colourAt(item.stops, t));
  const table = shadeColours(item.stops, item.masked);
  return item.shades.map((shade) => table[shade]);
});
process.stdout.write(JSON.stringify(drawn));
