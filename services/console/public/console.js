/* global document, Element */
// Copy buttons of secrets shown once (pages/components/ui.tsx, ShownOnce). An external file:
// the console's CSP allows no inline script.
document.addEventListener('click', (event) => {
  const button = event.target instanceof Element ? event.target.closest('button[data-copy]') : null;
  if (!button) return;
  const source = document.getElementById(button.getAttribute('data-copy') ?? '');
  const status = button.parentElement?.querySelector('.copy-status');
  const say = (text) => {
    if (status) status.textContent = text;
  };
  if (!source || !navigator.clipboard) {
    say('Select the text and copy it.');
    return;
  }
  navigator.clipboard.writeText(source.textContent ?? '').then(
    () => say('Copied.'),
    () => say('Could not copy: select the text and copy it.'),
  );
});
