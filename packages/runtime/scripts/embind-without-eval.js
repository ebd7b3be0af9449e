// onnxruntime-web's Emscripten glue builds embind's method callers (`_emval_get_method_caller`)
// as source text run through `new Function`, which a strict Content-Security-Policy (no
// 'unsafe-eval') forbids. `embindFunction(names, body)` stands in for `new Function(names,
// body)`: it recognizes the few shapes embind generates and returns the same caller as a
// closure. Any other body is an error at call time, never silently different behaviour.
// `src/runtime-assets.ts` writes this function's source into the copied module.

/**
 * @param {readonly string[]} names the parameter names of the generated factory
 * @param {string} body the generated source: `return function (handle, methodName, destructorsRef, args) { … }`
 * @returns {(...values: unknown[]) => Function} the factory, called with the values of `names`
 */
export function embindFunction(names, body) {
  const head = 'return function (handle, methodName, destructorsRef, args) {\n  ';
  const tail = '\n  }';
  const fail = () => {
    throw new Error(`Sieve's eval-free onnxruntime-web glue met a method caller it does not know: ${JSON.stringify(body)}`);
  };
  if (!body.startsWith(head) || !body.endsWith(tail)) fail();
  let call = body.slice(head.length, body.length - tail.length);
  const wrap = 'return emval_returnValue(toReturnWire, destructorsRef, ';
  const returns = call.startsWith(wrap) && call.endsWith(')');
  if (returns) call = call.slice(wrap.length, -1);
  const kinds = [
    ['method', 'toValue(handle)[getStringOrSymbol(methodName)]('],
    ['construct', 'new (toValue(handle))('],
    ['call', 'toValue(handle)('],
    ['last', '('],
  ];
  const found = kinds.find(([, prefix]) => call.startsWith(prefix) && call.endsWith(')'));
  if (found === undefined) return fail();
  const [kind, prefix] = found;
  const list = call.slice(prefix.length, -1);
  const args = list === '' ? [] : list.split(', ');
  args.forEach((arg, i) => {
    if (arg !== `argFromPtr${i}(args${i === 0 ? '' : `+${8 * i}`})`) fail();
  });
  if (kind === 'last' && args.length === 0) fail();
  return (...values) => {
    const scope = new Map(names.map((name, i) => [name, values[i]]));
    const toValue = scope.get('toValue');
    const readers = args.map((_, i) => scope.get(`argFromPtr${i}`));
    return function (handle, methodName, destructorsRef, argsPtr) {
      const argv = readers.map((read, i) => read(argsPtr + 8 * i));
      let value;
      if (kind === 'method') value = toValue(handle)[scope.get('getStringOrSymbol')(methodName)](...argv);
      else if (kind === 'construct') value = new (toValue(handle))(...argv);
      else if (kind === 'call') value = toValue(handle)(...argv);
      else value = argv[argv.length - 1];
      return returns ? scope.get('emval_returnValue')(scope.get('toReturnWire'), destructorsRef, value) : undefined;
    };
  };
}
