/**
 * Whether a number item of a unique array may still end as a value no earlier item has, when
 * the numbers it may be are bounded (`minimum`, `maximum`, `multipleOf`, constants a `not`
 * excludes): the values of the completions of what is written, in the language of the
 * item's lexeme, compared with the earlier items by value (`1`, `1.0` and `10e-1` are one).
 *
 * The automaton is walked beside the syntax of a JSON number (sign, integer part, fraction,
 * exponent), with whether the mantissa and the exponent are zero so far. A cycle of that
 * product either keeps the value (zeros at the end of a fraction, leading zeros of an
 * exponent, any exponent of a zero mantissa) or gives endlessly many values (another integer
 * digit, a fraction digit that a nonzero one may follow, an exponent digit past its leading
 * zeros): one of the latter within reach means some completion is new (the earlier items are
 * finitely many). Otherwise the values are finitely many, and a walk that skips the cycles
 * that keep a value meets each: new as soon as one is no earlier item.
 */
import type { ByteRegex } from '../ir/byte-regex.ts';
import { DEAD, LexerDfa } from '../lexer/lexer-dfa.ts';
import { DEFAULT_LIMITS } from '../limits.ts';

// Where a number's text is: nothing yet, after `-`, an integer part `0`, one from 1-9, after
// the point, in the fraction, after `e`, after the exponent's sign, in the exponent.
const START = 0;
const MINUS = 1;
const ZERO = 2;
const INT = 3;
const POINT = 4;
const FRAC = 5;
const EXP = 6;
const EXP_SIGN = 7;
const EXP_DIGITS = 8;
// The places where a number may end.
const COMPLETE = new Set([ZERO, INT, FRAC, EXP_DIGITS]);

const isDigit = (b: number): boolean => b >= 0x30 && b <= 0x39;

// The place after byte `b`, or -1 where a JSON number cannot take it.
function nextPlace(place: number, b: number): number {
  const digit = isDigit(b);
  switch (place) {
    case START:
      return b === 0x2d ? MINUS : b === 0x30 ? ZERO : digit ? INT : -1;
    case MINUS:
      return b === 0x30 ? ZERO : digit ? INT : -1;
    case ZERO:
    case INT:
      return digit && place === INT ? INT : b === 0x2e ? POINT : b === 0x65 || b === 0x45 ? EXP : -1;
    case POINT:
      return digit ? FRAC : -1;
    case FRAC:
      return digit ? FRAC : b === 0x65 || b === 0x45 ? EXP : -1;
    case EXP:
      return b === 0x2b || b === 0x2d ? EXP_SIGN : digit ? EXP_DIGITS : -1;
    default:
      return digit ? EXP_DIGITS : -1;
  }
}

// The bytes a number may hold.
const NUMBER_BYTES = [0x2b, 0x2d, 0x2e, 0x45, 0x65, ...Array.from({ length: 10 }, (_, i) => 0x30 + i)];

// A node of the product: automaton state, place, and whether the mantissa and the exponent
// digits are all zeros so far.
interface Node {
  readonly state: number;
  readonly place: number;
  readonly mantissaZero: boolean;
  readonly exponentZero: boolean;
}
const nodeKey = (n: Node): number => ((n.state * 16 + n.place) * 2 + (n.mantissaZero ? 1 : 0)) * 2 + (n.exponentZero ? 1 : 0);

function step(dfa: LexerDfa, n: Node, b: number): Node | null {
  const place = nextPlace(n.place, b);
  if (place < 0) return null;
  const state = dfa.next(n.state, b);
  if (state === DEAD) return null;
  const mantissaDigit = isDigit(b) && place !== EXP_DIGITS;
  return {
    state,
    place,
    mantissaZero: n.mantissaZero && !(mantissaDigit && b !== 0x30),
    exponentZero: n.exponentZero && !(place === EXP_DIGITS && b !== 0x30),
  };
}

// The product graph of one item language, from its start: each node's edges (byte, node),
// whether it may end a number, whether endlessly many values lie ahead of it, and whether a
// nonzero fraction digit does (trailing zeros before one are not trailing).
interface Graph {
  readonly dfa: LexerDfa;
  readonly nodes: Map<number, Node>;
  readonly edges: Map<number, [number, number][]>;
  readonly endless: Set<number>;
  readonly digitAhead: Set<number>;
}

// The grammar's lexer built this content already, within the grammar's limits (a lexeme of
// its own), and searches make states only along what is written: no limit is checked again.
const UNLIMITED = { ...DEFAULT_LIMITS, maxNfaStates: Number.MAX_SAFE_INTEGER, maxLexerStates: Number.MAX_SAFE_INTEGER };

/** The lexeme list an item's automaton starts from (its one lexeme). */
export const ITEM_LEXEME = [0];

/** The automaton of one item's content (a string's, a number's), built lazily and unlimited. */
export const itemAutomaton = (content: ByteRegex): LexerDfa => new LexerDfa([{ name: 'item', regex: content }], [], UNLIMITED);
const graphs = new WeakMap<ByteRegex, Graph>();

function graphOf(content: ByteRegex): Graph {
  let graph = graphs.get(content);
  if (graph !== undefined) return graph;
  const dfa = itemAutomaton(content);
  const nodes = new Map<number, Node>();
  const edges = new Map<number, [number, number][]>();
  const start: Node = { state: dfa.start(ITEM_LEXEME), place: START, mantissaZero: true, exponentZero: true };
  const stack = [start];
  nodes.set(nodeKey(start), start);
  while (stack.length > 0) {
    const n = stack.pop()!;
    const out: [number, number][] = [];
    for (const b of NUMBER_BYTES) {
      const next = step(dfa, n, b);
      if (next === null) continue;
      const key = nodeKey(next);
      out.push([b, key]);
      if (!nodes.has(key)) {
        nodes.set(key, next);
        stack.push(next);
      }
    }
    edges.set(nodeKey(n), out);
  }
  const ends = (key: number): boolean => COMPLETE.has(nodes.get(key)!.place) && dfa.accepting(nodes.get(key)!.state).length > 0;
  // Live nodes: some completion ends a number the language holds.
  const live = backwardClosure(edges, [...nodes.keys()].filter(ends));
  const liveEdges = new Map([...edges].filter(([key]) => live.has(key)).map(([key, out]) => [key, out.filter(([, to]) => live.has(to))]));
  const digitAhead = backwardClosure(
    liveEdges,
    [...liveEdges].filter(([key, out]) => isFraction(nodes.get(key)!.place) && out.some(([b]) => b >= 0x31 && b <= 0x39)).map(([key]) => key),
  );
  const endless = backwardClosure(liveEdges, pumping(liveEdges, nodes, digitAhead));
  graph = { dfa, nodes, edges: liveEdges, endless, digitAhead };
  graphs.set(content, graph);
  return graph;
}

const isFraction = (place: number): boolean => place === POINT || place === FRAC;

// The nodes from which one of `targets` can be reached (they included).
function backwardClosure(edges: ReadonlyMap<number, readonly [number, number][]>, targets: readonly number[]): Set<number> {
  const into = new Map<number, number[]>();
  for (const [from, out] of edges) for (const [, to] of out) (into.get(to) ?? into.set(to, []).get(to)!).push(from);
  const reached = new Set(targets);
  const stack = [...targets];
  while (stack.length > 0) {
    for (const from of into.get(stack.pop()!) ?? []) {
      if (!reached.has(from)) {
        reached.add(from);
        stack.push(from);
      }
    }
  }
  return reached;
}

// The nodes on a cycle that gives endlessly many values. A cycle stays at one place (places
// only move on, or stay in the integer part, fraction or exponent), and the flags stay too.
function pumping(edges: ReadonlyMap<number, readonly [number, number][]>, nodes: ReadonlyMap<number, Node>, digitAhead: ReadonlySet<number>): number[] {
  const found: number[] = [];
  for (const component of cycles(edges)) {
    const n = nodes.get(component[0]!)!;
    const inside = new Set(component);
    const nonzero = component.some((key) => edges.get(key)!.some(([b, to]) => inside.has(to) && b !== 0x30));
    const endless =
      n.place === INT || (n.place === FRAC && (nonzero || digitAhead.has(component[0]!))) || (n.place === EXP_DIGITS && !n.mantissaZero && !n.exponentZero);
    if (endless) for (const key of component) found.push(key);
  }
  return found;
}

// The strongly connected components that hold a cycle (Tarjan's algorithm, iterative).
function cycles(edges: ReadonlyMap<number, readonly [number, number][]>): number[][] {
  const index = new Map<number, number>();
  const low = new Map<number, number>();
  const onStack = new Set<number>();
  const stack: number[] = [];
  const found: number[][] = [];
  for (const root of edges.keys()) {
    if (index.has(root)) continue;
    const work: [number, number][] = [[root, 0]];
    index.set(root, index.size);
    low.set(root, index.get(root)!);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const top = work[work.length - 1]!;
      const [v, i] = top;
      const out = edges.get(v)!;
      if (i < out.length) {
        top[1]++;
        const w = out[i]![1];
        if (!index.has(w)) {
          index.set(w, index.size);
          low.set(w, index.get(w)!);
          stack.push(w);
          onStack.add(w);
          work.push([w, 0]);
        } else if (onStack.has(w)) {
          low.set(v, Math.min(low.get(v)!, index.get(w)!));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1]![0];
        low.set(parent, Math.min(low.get(parent)!, low.get(v)!));
      }
      if (low.get(v) === index.get(v)) {
        const component: number[] = [];
        let w: number;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          component.push(w);
        } while (w !== v);
        if (component.length > 1 || out.some(([, to]) => to === v)) found.push(component);
      }
    }
  }
  return found;
}

// Per set of earlier items (a frame's list, replaced when an item is added, never changed):
// those items as a set, and what searches found, the places (node and the value written so
// far) from which a new value can be reached or cannot.
const searches = new WeakMap<readonly string[], { readonly earlier: ReadonlySet<string>; readonly found: Map<string, boolean> }>();

/**
 * Whether some completion of `prefix` (a number's text so far) in the language `content`
 * has a value none of `seen` (canonical, see `canonicalNumber`) has. True where the automaton
 * refuses the prefix (the grammar has the last word).
 */
export function numberEndsAnew(content: ByteRegex, prefix: string, seen: readonly string[]): boolean {
  const graph = graphOf(content);
  let n: Node | null = { state: graph.dfa.start(ITEM_LEXEME), place: START, mantissaZero: true, exponentZero: true };
  for (let i = 0; i < prefix.length && n !== null; i++) n = step(graph.dfa, n, prefix.charCodeAt(i));
  if (n === null || !graph.edges.has(nodeKey(n)) || graph.endless.has(nodeKey(n))) return true;
  let known = searches.get(seen);
  if (known === undefined) searches.set(seen, (known = { earlier: new Set(seen), found: new Map() }));
  const { earlier, found } = known;
  const search = { graph, earlier, found, visiting: new Set<string>(), none: [] as string[] };
  const anew = endsAnewFrom(search, nodeKey(n), prefix);
  // (A place found to have nothing new while a place it reaches was still being searched
  // holds only once the whole search found nothing.)
  if (!anew) for (const place of search.none) found.set(place, false);
  return anew;
}

interface Search {
  readonly graph: Graph;
  readonly earlier: ReadonlySet<string>;
  readonly found: Map<string, boolean>;
  readonly visiting: Set<string>;
  readonly none: string[];
}

function endsAnewFrom(search: Search, key: number, text: string): boolean {
  const { graph, found, visiting } = search;
  const n = graph.nodes.get(key)!;
  const place = `${key} ${valueSoFar(text, n, graph.digitAhead.has(key))}`;
  const known = found.get(place);
  if (known !== undefined) return known;
  // A cycle back here keeps the value: nothing new that way.
  if (visiting.has(place)) return false;
  visiting.add(place);
  let anew = COMPLETE.has(n.place) && graph.dfa.accepting(n.state).length > 0 && !search.earlier.has(canonicalNumber(text));
  for (const [b, to] of graph.edges.get(key)!) {
    if (anew) break;
    anew = endsAnewFrom(search, to, text + String.fromCharCode(b));
  }
  visiting.delete(place);
  if (anew) found.set(place, true);
  else search.none.push(place);
  return anew;
}

// What decides the values a node's completions give, of the text so far: the text, less
// zeros ending a fraction no nonzero digit may follow, less an exponent's leading zeros, and
// of a zero mantissa's exponent nothing (its value is 0 whatever comes).
function valueSoFar(text: string, n: Node, digitAhead: boolean): string {
  if (n.place === FRAC && !digitAhead) return text.replace(/0+$/, '');
  if (n.place < EXP) return text;
  const e = text.search(/[eE]/);
  if (n.mantissaZero) return '0e';
  const exponent = /^([+-]?)0*(\d*)$/.exec(text.slice(e + 1))!;
  return `${text.slice(0, e)}e${exponent[1]}${exponent[2]}`;
}

/** A JSON number as an exact decimal: its significant digits and exponent (`0` for zero). */
export function canonicalNumber(literal: string): string {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(literal);
  // (Not a number: bytes the grammar refuses, which has the last word.)
  if (match === null) return literal;
  const [, sign, whole, fraction = '', exponent = '0'] = match;
  let digits = (whole! + fraction).replace(/^0+/, '');
  if (digits === '') return '0';
  let power = BigInt(exponent) - BigInt(fraction.length);
  const trailing = digits.length - digits.replace(/0+$/, '').length;
  digits = digits.slice(0, digits.length - trailing);
  power += BigInt(trailing);
  return `${sign}${digits}e${power}`;
}
