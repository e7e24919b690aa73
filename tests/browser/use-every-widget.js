'use strict';
// What a reader does with each widget of tests/browser/hosts/all-widgets.html, with the mouse:
// one list for the long-task test (tasks.test.js) and npm run bench:site.

// A person's actions are frames apart: each one gets the page's rendering to itself.
const rendered = (page) => page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 50))));

/** Clicks, chooses and types through every widget of the page; waits for the last redraws. */
async function useEveryWidget(page) {
  const clicks = ['#w-stepper button:has-text("Next")', '#w-stepper button:has-text("arrow")', '#w-heatmap label:has-text("causal mask")',
    '#w-worked button:has-text("mostly")', '#w-heads label:has-text("forget the head transpose")', '#w-padding label:has-text("forget the padding mask")',
    // A wrong first answer gets a hint: the second click shows the answer, as before.
    '#w-softmax button:has-text("NaN")', '#w-softmax button:has-text("NaN")', '#w-shapes label:has-text("quiz")',
    '#w-mistakes button:has-text("every cell")', '#w-position button:has-text("the same")', '#w-position label:has-text("the mistake")',
    '#w-online button:has-text("Next")', '#w-online button:has-text("Next")', '#w-kvcache button:has-text("Next token")',
    '#w-kvcache button:has-text("Next token")', '#w-cost button:has-text("about 4")', '#w-trainer button:has-text("Skip the prediction")',
    '#w-trainer button:has-text("Train")', '#w-trainer button:has-text("One step")'];
  for (const selector of clicks) {
    await page.click(selector);
    await rendered(page);
  }
  // The cost lab's three menus: largest n, model preset, data type (its sweep is cost-lab.test.js's).
  for (const i of [0, 1, 2]) {
    await page.selectOption(`#w-cost select >> nth=${i}`, { index: 2 });
    await rendered(page);
  }
  await page.selectOption('#w-heads select', '8');
  await rendered(page);
  await page.selectOption('#w-mistakes select', 'fp16-mask-fill');
  await rendered(page);
  await page.selectOption('#w-scaling select', '2');
  await rendered(page);
  await page.selectOption('#w-trainer select >> nth=2', '1');
  await rendered(page);
  await page.fill('#w-scaling input[type="number"]', '7');
  await page.press('#w-scaling input[type="number"]', 'Tab');
  await page.waitForTimeout(3000);
}

module.exports = { useEveryWidget };
