'use strict';
// The induction question's wording and choices (web/src/ui/induction-question.js), DOM-free:
// every earlier copy of the last token is named, and the head is chosen by prefix matching apart
// from the previous token.
const test = require('node:test');
const assert = require('node:assert/strict');
const { inductionQuestion, inductionHead, earlierCopies, listed } = require('../../web/src/ui/induction-question.js');

test('earlierCopies gives every earlier position of the last token, the copy in the same words as the end first', () => {
  // The c at s at on the m at: "at" came at 2 and 4
  assert.deepEqual(earlierCopies(['The', ' c', 'at', ' s', 'at', ' on', ' the', ' m', 'at']).sort(), [2, 4]);
  // x a b . y a b . x a b: the copy after "x" (position 2) matches the end for longest
  const t = ['x', 'a', 'b', '.', 'y', 'a', 'b', '.', 'x', 'a', 'b'];
  assert.deepEqual(earlierCopies(t), [2, 6]);
  assert.deepEqual(earlierCopies(['a', 'b', 'c']), []);
  assert.equal(listed([2]), '2');
  assert.equal(listed([2, 4]), '2 and 4');
  assert.equal(listed([2, 4, 9]), '2, 4 and 9');
});

test('the question names every earlier copy, also one whose next token is the one just before the last', () => {
  // a b a b: the last "b" came at 1 (next: "a" at 2, the token just before the last) only, so nothing to ask.
  assert.equal(inductionQuestion(['a', 'b', 'a', 'b'], [0.25, 0.25, 0.25, 0.25], { layer: 1, head: 0 }), null);
  // b c b a b: the last "b" came at 0 and 2; only the copy at 0 offers a choice, the question names both.
  const q = inductionQuestion(['b', 'c', 'b', 'a', 'b'], [0.1, 0.6, 0.1, 0.1, 0.1], { layer: 1, head: 0, prefixMatchingApart: 0.6 });
  assert.match(q.question, /at positions 0 and 2\. /);
  assert.deepEqual(q.choices.map((c) => c.value), [0, 1, 3]);
  assert.equal(q.answer, 1);
});

test('inductionHead picks the highest prefix matching apart from the previous token; the reveal explains a previous-token head ranked first by plain prefix matching', () => {
  const rows = [
    { layer: 0, head: 0, previousToken: 1, prefixMatching: 0.5, prefixMatchingApart: 0 },
    { layer: 1, head: 1, previousToken: 0.16, prefixMatching: 0.44, prefixMatchingApart: 0.3 },
    { layer: 1, head: 2, previousToken: 0.1, prefixMatching: null, prefixMatchingApart: null },
  ];
  const head = inductionHead(rows);
  assert.deepEqual([head.layer, head.head], [1, 1]);
  assert.equal(inductionHead([{ layer: 0, head: 0, prefixMatching: 1, prefixMatchingApart: null }]), null);
  const tokens = ['The', ' c', 'at', ' s', 'at', ' on', ' the', ' m', 'at'];
  const q = inductionQuestion(tokens, [0.1, 0, 0.1, 0.3, 0.1, 0.4, 0, 0, 0], head, rows);
  assert.match(q.question, /at positions 2 and 4\. Where will the model's strongest induction head, layer 1, head 1, look most from it\?$/);
  // The choices name tokens and positions, never their roles (which would answer the question); the feedback names the role.
  assert.deepEqual(q.choices.map((c) => c.label), ['\u201cThe\u201d (position 0)', '\u201c s\u201d (position 3)', '\u201cat\u201d (position 4)', '\u201c on\u201d (position 5)', '\u201c m\u201d (position 7)']);
  assert.doesNotMatch(q.question, /follow|after|copy of|previous/);
  assert.match(q.judge(5).message, /^Right: from \u201cat\u201d the head puts most weight on \u201c on\u201d \(position 5, the token right after the earlier copy at position 4\) with weight 0\.40\./);
  // the token after the other copy, which the same rule names, and its weight
  assert.match(q.judge(5).message, /The token after the other copy gets less: \u201c s\u201d \(position 3\) 0\.30\./);
  assert.match(q.judge(0).message, /^Not this time: .* and 0\.10 on \u201cThe\u201d \(position 0, the first token\)\./);
  assert.match(q.reveal, /Sorted by prefix matching, the summary puts layer 0, head 0 first \(0\.50; previous-token score 1\.00\).*layer 0, head 0 scores 0\.00 and layer 1, head 1 0\.30\./);
  // Without a confounded head ranked first, no note.
  assert.doesNotMatch(inductionQuestion(tokens, [0.1, 0, 0.1, 0.3, 0.1, 0.4, 0, 0, 0], head, rows.slice(1)).reveal, /Sorted by/);
});
