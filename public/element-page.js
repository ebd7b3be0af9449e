// The page's own listeners: a plain (classic) script, so it runs before the module defines
// the element and no event is missed. (A file, not inline: the page runs under a strict CSP.)
let tokens = 0;
for (const element of document.querySelectorAll('sieve-output')) {
  element.addEventListener('token', () => tokens++);
  element.addEventListener('done', (event) => {
    document.body.dataset[element.id] = event.detail.text;
    document.body.dataset.tokens = String(tokens);
  });
  element.addEventListener('error', (event) => (document.body.dataset.error = String(event.detail && event.detail.message)));
}
