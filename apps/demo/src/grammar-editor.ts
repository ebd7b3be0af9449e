// A grammar editor: a textarea over a backdrop that marks the error span, so a compile
// error shows where it is as you type.
import type { TextSpan } from './json-locate.ts';

export class GrammarEditor {
  readonly #textarea: HTMLTextAreaElement;
  readonly #backdrop: HTMLElement;
  readonly #message: HTMLElement;
  #span: TextSpan | null = null;

  constructor(root: HTMLElement, onInput: (text: string) => void) {
    this.#textarea = root.querySelector('textarea')!;
    this.#backdrop = root.querySelector('.backdrop')!;
    this.#message = root.querySelector('.error')!;
    this.#textarea.addEventListener('input', () => {
      this.#render();
      onInput(this.#textarea.value);
    });
    this.#textarea.addEventListener('scroll', () => {
      this.#backdrop.scrollTop = this.#textarea.scrollTop;
      this.#backdrop.scrollLeft = this.#textarea.scrollLeft;
    });
  }

  get value(): string {
    return this.#textarea.value;
  }

  set value(text: string) {
    this.#textarea.value = text;
    this.#span = null;
    this.#render();
  }

  /** Marks `span` (null: the whole text is at fault, or no place is known) and shows `message`. */
  showError(message: string, span: TextSpan | null): void {
    this.#span = span;
    this.#message.textContent = message;
    this.#message.hidden = false;
    this.#textarea.setAttribute('aria-invalid', 'true');
    this.#render();
  }

  clearError(): void {
    this.#span = null;
    this.#message.hidden = true;
    this.#textarea.removeAttribute('aria-invalid');
    this.#render();
  }

  /** The marked span, if any (tests read it from `data-error-start` / `data-error-end` too). */
  get errorSpan(): TextSpan | null {
    return this.#span;
  }

  #render(): void {
    const text = this.#textarea.value;
    const span = this.#span;
    const parts: Node[] = [];
    if (span === null) {
      parts.push(document.createTextNode(text));
      delete this.#backdrop.dataset.errorStart;
      delete this.#backdrop.dataset.errorEnd;
    } else {
      // An empty span (an error at the end) still gets a visible mark.
      const start = Math.min(span.start, text.length);
      const end = Math.max(start, Math.min(span.end, text.length));
      const mark = document.createElement('mark');
      mark.textContent = text.slice(start, end) || ' ';
      parts.push(document.createTextNode(text.slice(0, start)), mark, document.createTextNode(text.slice(end)));
      this.#backdrop.dataset.errorStart = String(start);
      this.#backdrop.dataset.errorEnd = String(end);
    }
    // A trailing newline needs a character after it to take up its line.
    parts.push(document.createTextNode('\n'));
    this.#backdrop.replaceChildren(...parts);
  }
}
