// The live mask: one cell per vocabulary token, allowed or masked, redrawn each step from the
// BRLE the sampler used; the sampled token is marked. Also a small plot of mask µs against
// forward-pass ms per step.

const ALLOWED = [46, 160, 87];
const MASKED = [38, 42, 52];
const CHOSEN = [255, 196, 0];

/** Draws masks of a `vocabSize`-token vocabulary onto `canvas` (row-major, token 0 at top left). */
export class MaskView {
  readonly #canvas: HTMLCanvasElement;
  readonly #context: CanvasRenderingContext2D;
  #vocabSize = 0;
  #columns = 1;
  #cell = 1;

  constructor(canvas: HTMLCanvasElement) {
    this.#canvas = canvas;
    this.#context = canvas.getContext('2d', { willReadFrequently: true })!;
  }

  /** Sizes the grid for a vocabulary (cells as large as fit, at least one pixel). */
  reset(vocabSize: number): void {
    this.#vocabSize = vocabSize;
    const width = this.#canvas.width;
    // Square-ish cells filling a 2:1 canvas.
    this.#cell = Math.max(1, Math.floor(Math.sqrt((width * (width / 2)) / vocabSize)));
    this.#columns = Math.floor(width / this.#cell);
    this.#canvas.height = Math.ceil(vocabSize / this.#columns) * this.#cell;
    this.#context.fillStyle = `rgb(${MASKED.join(',')})`;
    this.#context.fillRect(0, 0, this.#canvas.width, this.#canvas.height);
  }

  /** Paints `mask` (BRLE: masked, allowed, masked, … run lengths; empty = all allowed) and marks `chosen`. */
  draw(mask: Uint32Array, chosen: number): void {
    const { width, height } = this.#canvas;
    const image = this.#context.createImageData(width, height);
    const paint = (token: number, [r, g, b]: readonly number[]): void => {
      const x0 = (token % this.#columns) * this.#cell;
      const y0 = Math.floor(token / this.#columns) * this.#cell;
      for (let y = y0; y < y0 + this.#cell; y++) {
        for (let x = x0; x < x0 + this.#cell; x++) {
          const at = (y * width + x) * 4;
          image.data[at] = r!;
          image.data[at + 1] = g!;
          image.data[at + 2] = b!;
          image.data[at + 3] = 255;
        }
      }
    };
    if (mask.length === 0) for (let t = 0; t < this.#vocabSize; t++) paint(t, ALLOWED);
    let token = 0;
    for (let i = 0; i < mask.length; i++) {
      for (let end = token + mask[i]!; token < end; token++) paint(token, i % 2 === 1 ? ALLOWED : MASKED);
    }
    if (chosen >= 0 && chosen < this.#vocabSize) paint(chosen, CHOSEN);
    this.#context.putImageData(image, 0, 0);
    // On a large vocabulary a cell is a pixel: ring the sampled token so it stays visible.
    if (chosen >= 0 && this.#cell < 6) {
      this.#context.strokeStyle = `rgb(${CHOSEN.join(',')})`;
      this.#context.lineWidth = 2;
      this.#context.strokeRect((chosen % this.#columns) * this.#cell - 4, Math.floor(chosen / this.#columns) * this.#cell - 4, this.#cell + 8, this.#cell + 8);
    }
  }
}

/** Mask µs (orange) and forward ms (blue) per sampled step, each on its own scale. */
export class StepPlot {
  readonly #canvas: HTMLCanvasElement;
  readonly #mask: number[] = [];
  readonly #forward: number[] = [];

  constructor(canvas: HTMLCanvasElement) {
    this.#canvas = canvas;
  }

  reset(): void {
    this.#mask.length = 0;
    this.#forward.length = 0;
    this.#draw();
  }

  add(maskUs: number, forwardMs: number): void {
    this.#mask.push(maskUs);
    this.#forward.push(forwardMs);
    this.#draw();
  }

  #draw(): void {
    const context = this.#canvas.getContext('2d')!;
    const { width, height } = this.#canvas;
    context.clearRect(0, 0, width, height);
    context.font = '11px system-ui, sans-serif';
    const series: [readonly number[], string, string][] = [
      [this.#forward, '#2f6fd6', 'forward ms'],
      [this.#mask, '#e07b1a', 'mask µs'],
    ];
    series.forEach(([values, color, label], row) => {
      const top = Math.max(1e-9, ...values);
      context.strokeStyle = color;
      context.fillStyle = color;
      context.beginPath();
      values.forEach((v, i) => {
        const x = values.length === 1 ? 0 : (i / (values.length - 1)) * (width - 1);
        const y = height - 14 - (v / top) * (height - 28);
        if (i === 0) context.moveTo(x, y);
        else context.lineTo(x, y);
      });
      context.stroke();
      context.fillText(`${label} (max ${top < 1e-6 ? 0 : top.toFixed(top < 10 ? 2 : 0)})`, 4 + row * 150, 11);
    });
  }
}
