// bitAt reads Python's np.packbits(..., bitorder="little"): the dropout map's dropped cells (view_data.dropped_bits).
import assert from "node:assert/strict";
import { test } from "node:test";
import { bitAt } from "../../ui/view/view_core.mjs";

test("bitAt reads little-endian packed bits, and nothing past them", () => {
  const bits = Uint8Array.from([0b00000101, 0b10000000]); // bits 0, 2 and 15 set
  assert.deepEqual([...Array(18).keys()].filter((n) => bitAt(bits, n)), [0, 2, 15]);
  assert.equal(bitAt(undefined, 0), false);
  assert.equal(bitAt(bits, -1), false);
});
