// Unit test of src/chatdoc.ts (bundled to dist/chatdoc.js by esbuild.mjs).
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { toolIdAt, placeholder, counts, splitLines, pending, nearestPending } = require('../dist/chatdoc.js');

const doc = splitLines(
  [
    '@Assistant:', //                                0
    '**Tool Use:** `bash` (`toolu_1`)', //           1
    '', //                                           2
    '```json', //                                    3
    '{"command":"ls"}', //                           4
    '```', //                                        5
    '**Tool Use:** `srv:grep` (`toolu_2`)', //       6
    '```json', //                                    7
    '{"pattern":"**Tool Use:** `x` (`fake`)"}', //   8
    '```', //                                        9
    '@You:', //                                     10
    '**Tool Result:** `toolu_1`', //                11
    '', //                                          12
    '```flemma:tool status=pending', //             13
    '```', //                                       14
    '**Tool Result:** `toolu_2` (approved)', //     15
    '````', //                                      16
    '```', //                                       17
    '**Tool Result:** `toolu_x`', //                18
    '````', //                                      19
    '**Tool Result:** `toolu_3`', //                20
    '```flemma:pending', //                         21
    '```', //                                       22
  ].join('\r\n'),
);

test('toolIdAt', () => {
  assert.equal(toolIdAt(doc, 1), 'toolu_1');
  assert.equal(toolIdAt(doc, 4), 'toolu_1');
  assert.equal(toolIdAt(doc, 8), 'toolu_2', 'header-like text inside a fence is content');
  assert.equal(toolIdAt(doc, 14), 'toolu_1');
  assert.equal(toolIdAt(doc, 18), 'toolu_2');
  assert.equal(toolIdAt(doc, 0), undefined);
});

test('placeholder', () => {
  assert.deepEqual(placeholder(doc, 'toolu_1'), { header: 11, opener: 13, closer: 14, status: 'pending' });
  assert.deepEqual(placeholder(doc, 'toolu_2'), { header: 15, opener: 16, closer: 19, status: 'approved' });
  assert.equal(placeholder(doc, 'nope'), undefined);
});

test('counts', () => {
  assert.deepEqual(counts(doc), { pending: 2, approved: 1 });
  assert.deepEqual(counts(['**Tool Result:** `a` (reject)', '```', '```']), { pending: 0, approved: 0 });
  assert.deepEqual(counts(['**Tool Result:** `a`', '', '```', 'ok', '```']), { pending: 0, approved: 0 });
});

test('pending and nearestPending', () => {
  assert.deepEqual(pending(doc), [
    { id: 'toolu_1', name: 'bash', header: 11, opener: 13 },
    { id: 'toolu_3', name: undefined, header: 20, opener: 21 },
  ]);
  assert.equal(nearestPending(doc, 0).id, 'toolu_1');
  assert.equal(nearestPending(doc, 22).id, 'toolu_3');
  assert.equal(nearestPending(['@You:', 'hi'], 0), undefined);
});
