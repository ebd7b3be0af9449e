// The live mask: the vocabulary as a grid of cells, redrawn each step from the BRLE the
// sampler used, with the sampled token marked. Small vocabularies get one cell per token
// (stories260K: 512 cells of 16 px); past the canvas's pixels a cell holds several tokens
// and is shaded by the share of them allowed (Gemma 3: 262,145 tokens, 3 per pixel). The
// cells are counted from the mask's allowed runs, never token by token. Also a small plot
// of mask µs against forward-pass ms per step.

const ALLOWED = [46, 160, 87] as const;
const MASKED = [38, 42, 52] as const;
const CHOSEN = [255, 196, 0] as const;
// A cell with any allowed token starts this far from MASKED towards ALLOWED, so that a lone
// allowed token among thousands stays visible.
const LEAST_SHADE = 0.35;

/** How a vocabulary maps onto the canvas. */
export interface MaskLayout {
  /** Cell side in pixels. */
  readonly cell: number;
  readonly columns: number;
  readonly rows: number;
  /** Tokens a cell stands for (the last cell may hold fewer). */
  readonly tokensPerCell: number;
}

/**
 * Square-ish cells filling a `width` × `width / 2` canvas: as large as fit, at least one
 * pixel; when there are more tokens than pixels, as few tokens per cell as fit.
 */
export function maskLayout(vocabSize: number, width: number): MaskLayout {
  const height = Math.floor(width / 2);
  const cell = Math.min(height, Math.max(1, Math.floor(Math.sqrt((width * height) / vocabSize))));
  const columns = Math.floor(width / cell);
  const tokensPerCell = Math.max(1, Math.ceil(vocabSize / (columns * Math.floor(height / cell))));
  return { cell, columns, rows: Math.ceil(Math.ceil(vocabSize / tokensPerCell) / columns), tokensPerCell };
}

/**
 * Counts the allowed tokens of each cell into `counts` (one entry per cell) from `mask`
 * (BRLE: masked, allowed, masked, … run lengths; empty = all allowed): work per allowed run
 * and per cell it covers, not per token.
 */
export function allowedPerCell(mask: Uint32Array, vocabSize: number, tokensPerCell: number, counts: Uint32Array): void {
  counts.fill(0);
  if (mask.length === 0) return addRun(counts, 0, vocabSize, tokensPerCell);
  let token = 0;
  for (let i = 0; i < mask.length; i++) {
    const end = token + mask[i]!;
    if (i % 2 === 1) addRun(counts, token, end, tokensPerCell);
    token = end;
  }
}

function addRun(counts: Uint32Array, start: number, end: number, tokensPerCell: number): void {
  for (let cell = Math.floor(start / tokensPerCell); start < end; cell++) {
    const cellEnd = Math.min(end, (cell + 1) * tokensPerCell);
    counts[cell]! += cellEnd - start;
    start = cellEnd;
  }
}

// 0: masked; 1–255: the allowed share, from LEAST_SHADE to all of ALLOWED; as RGBA words in
// the machine's byte order (ImageData is RGBA bytes).
const SHADES = new Uint32Array(256);
const rgba = new Uint8Array(SHADES.buffer);
for (let level = 0; level < 256; level++) {
  const t = level === 0 ? 0 : LEAST_SHADE + ((1 - LEAST_SHADE) * (level - 1)) / 254;
  for (let c = 0; c < 3; c++) rgba[level * 4 + c] = Math.round(MASKED[c]! + (ALLOWED[c]! - MASKED[c]!) * t);
  rgba[level * 4 + 3] = 255;
}
// 0 for none allowed, 255 for all, 1–253 by share in between (so a cell not all allowed
// never looks it).
function shadeLevel(allowed: number, tokens: number): number {
  if (allowed === 0) return 0;
  return allowed === tokens ? 255 : 1 + Math.floor((253 * allowed) / tokens);
}

const CHOSEN_WORD = new Uint32Array(new Uint8Array([...CHOSEN, 255]).buffer)[0]!;

/** Draws masks of a vocabulary onto a canvas (row-major, token 0 at top left). */
export class MaskView {
  readonly #canvas: HTMLCanvasElement;
  readonly #context: CanvasRenderingContext2D;
  #vocabSize = 0;
  #layout: MaskLayout = { cell: 1, columns: 1, rows: 1, tokensPerCell: 1 };
  #counts = new Uint32Array(0);

  constructor(canvas: HTMLCanvasElement) {
    this.#canvas = canvas;
    this.#context = canvas.getContext('2d', { willReadFrequently: true })!;
  }

  /** Lays out the grid for a vocabulary of `vocabSize` tokens, all masked. */
  reset(vocabSize: number): MaskLayout {
    this.#vocabSize = vocabSize;
    this.#layout = maskLayout(vocabSize, this.#canvas.width);
    this.#counts = new Uint32Array(this.#layout.columns * this.#layout.rows);
    this.#canvas.height = this.#layout.rows * this.#layout.cell;
    this.#canvas.dataset.tokensPerCell = String(this.#layout.tokensPerCell);
    this.#context.fillStyle = `rgb(${MASKED.join(',')})`;
    this.#context.fillRect(0, 0, this.#canvas.width, this.#canvas.height);
    return this.#layout;
  }

  /** Paints `mask` (BRLE; empty = all allowed) and marks the sampled token `chosen`. */
  draw(mask: Uint32Array, chosen: number): void {
    const { cell, columns, tokensPerCell } = this.#layout;
    const width = this.#canvas.width;
    const image = this.#context.createImageData(width, this.#canvas.height);
    const pixels = new Uint32Array(image.data.buffer);
    allowedPerCell(mask, this.#vocabSize, tokensPerCell, this.#counts);
    const cells = Math.ceil(this.#vocabSize / tokensPerCell);
    const chosenCell = chosen >= 0 && chosen < this.#vocabSize ? Math.floor(chosen / tokensPerCell) : -1;
    for (let c = 0; c < cells; c++) {
      const tokens = Math.min(tokensPerCell, this.#vocabSize - c * tokensPerCell);
      const word = c === chosenCell ? CHOSEN_WORD : SHADES[shadeLevel(this.#counts[c]!, tokens)]!;
      const x0 = (c % columns) * cell;
      const y0 = Math.floor(c / columns) * cell;
      for (let y = y0; y < y0 + cell; y++) pixels.fill(word, y * width + x0, y * width + x0 + cell);
    }
    this.#context.putImageData(image, 0, 0);
    // Small cells: ring the sampled token so it stays visible.
    if (chosenCell >= 0 && cell < 6) {
      this.#context.strokeStyle = `rgb(${CHOSEN.join(',')})`;
      this.#context.lineWidth = 2;
      this.#context.strokeRect((chosenCell % columns) * cell - 4, Math.floor(chosenCell / columns) * cell - 4, cell + 8, cell + 8);
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
