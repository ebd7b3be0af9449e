// A form rendered from its JSON Schema: one field per property (text, number, choice, yes/no,
// lists of items), filled from a value as the model writes it, and read back after the person
// edits. Anything the renderer has no widget for is edited as JSON.

type Schema = Record<string, unknown>;

/** A field: shows a value, and reads back what is in it (undefined: left empty). */
interface Field {
  readonly element: HTMLElement;
  set(value: unknown): void;
  get(): unknown;
}

/** The form for `schema` inside `root`; `onEdit` runs after every change the person makes. */
export class FormView {
  readonly #field: Field;

  constructor(root: HTMLElement, schema: Schema, onEdit: () => void) {
    this.#field = field(schema, (schema['title'] as string | undefined) ?? 'Form', 'form', onEdit);
    root.replaceChildren(this.#field.element);
  }

  set value(value: unknown) {
    this.#field.set(value);
  }

  get value(): unknown {
    return this.#field.get();
  }
}

let ids = 0;

function field(schema: Schema | boolean, label: string, path: string, onEdit: () => void, required = false): Field {
  // `true` (anything) and other schemas without a widget are edited as JSON.
  if (typeof schema !== 'object' || schema === null) return jsonField(label, path, onEdit);
  const choices = schema['enum'] !== undefined ? (schema['enum'] as unknown[]) : 'const' in schema ? [schema['const']] : null;
  if (choices !== null) return choiceField(choices, label, path, onEdit);
  const type = schema['type'];
  if (type === 'object' && typeof schema['properties'] === 'object') return objectField(schema, label, path, onEdit);
  if (type === 'array' && typeof schema['items'] === 'object') return arrayField(schema, label, path, onEdit);
  if (type === 'string')
    return inputField(
      'text',
      label,
      path,
      onEdit,
      required,
      (s) => s,
      (v) => (typeof v === 'string' ? v : ''),
    );
  if (type === 'integer' || type === 'number')
    return inputField(
      'number',
      label,
      path,
      onEdit,
      required,
      (s) => (s === '' ? undefined : Number(s)),
      (v) => (typeof v === 'number' ? String(v) : ''),
    );
  if (type === 'boolean') return choiceField([true, false], label, path, onEdit);
  return jsonField(label, path, onEdit);
}

function labelled(label: string, path: string, control: HTMLElement, required = false): HTMLElement {
  if (required) control.setAttribute('aria-required', 'true');
  const id = `f${++ids}`;
  control.id = id;
  control.dataset.path = path;
  const wrapper = document.createElement('div');
  wrapper.className = 'field';
  const text = document.createElement('label');
  text.htmlFor = id;
  text.textContent = label;
  wrapper.append(text, control);
  return wrapper;
}

// A field holds a value once one is set or typed (an empty string the model wrote is a value;
// a field the person empties has none).
function inputField(
  type: 'text' | 'number',
  label: string,
  path: string,
  onEdit: () => void,
  required: boolean,
  read: (s: string) => unknown,
  show: (v: unknown) => string,
): Field {
  const input = document.createElement('input');
  input.type = type;
  input.required = required;
  if (type === 'number') input.step = 'any';
  let present = false;
  input.addEventListener('input', () => {
    present = input.value !== '';
    onEdit();
  });
  return {
    element: labelled(label, path, input, required),
    set: (v) => {
      present = v !== undefined;
      input.value = show(v);
    },
    get: () => (present ? read(input.value) : undefined),
  };
}

function choiceField(choices: readonly unknown[], label: string, path: string, onEdit: () => void): Field {
  const select = document.createElement('select');
  select.append(new Option('—', ''), ...choices.map((c) => new Option(typeof c === 'string' ? c : JSON.stringify(c), JSON.stringify(c))));
  select.addEventListener('change', onEdit);
  return {
    element: labelled(label, path, select),
    set: (v) => void (select.value = v === undefined ? '' : JSON.stringify(v)),
    get: () => (select.value === '' ? undefined : (JSON.parse(select.value) as unknown)),
  };
}

function jsonField(label: string, path: string, onEdit: () => void): Field {
  const area = document.createElement('textarea');
  area.rows = 2;
  area.addEventListener('input', onEdit);
  return {
    element: labelled(`${label} (JSON)`, path, area),
    set: (v) => void (area.value = v === undefined ? '' : JSON.stringify(v)),
    get: () => {
      try {
        return area.value.trim() === '' ? undefined : (JSON.parse(area.value) as unknown);
      } catch {
        return area.value;
      }
    },
  };
}

function objectField(schema: Schema, label: string, path: string, onEdit: () => void): Field {
  const set = document.createElement('fieldset');
  const legend = document.createElement('legend');
  legend.textContent = label;
  set.append(legend);
  const required = new Set((schema['required'] as string[] | undefined) ?? []);
  const members = Object.entries(schema['properties'] as Record<string, Schema | boolean>).map(([key, sub]) => {
    const title = typeof sub === 'object' && typeof sub['title'] === 'string' ? sub['title'] : key;
    const child = field(sub, `${title}${required.has(key) ? ' *' : ''}`, `${path}.${key}`, onEdit, required.has(key));
    set.append(child.element);
    return [key, child] as const;
  });
  // Members the form has no field for (additional properties) are kept as they came.
  let extra: Record<string, unknown> = {};
  let present = path === 'form';
  return {
    element: set,
    set: (v) => {
      const object = typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
      present = path === 'form' || object === v;
      extra = Object.fromEntries(Object.entries(object).filter(([key]) => !members.some(([k]) => k === key)));
      for (const [key, child] of members) child.set(object[key]);
    },
    get: () => {
      const out: Record<string, unknown> = { ...extra };
      for (const [key, child] of members) {
        const value = child.get();
        if (value !== undefined) out[key] = value;
      }
      // An optional object nobody wrote stays absent.
      return present || Object.keys(out).length > 0 ? out : undefined;
    },
  };
}

function arrayField(schema: Schema, label: string, path: string, onEdit: () => void): Field {
  const set = document.createElement('fieldset');
  set.className = 'list';
  const legend = document.createElement('legend');
  legend.textContent = label;
  const list = document.createElement('div');
  const add = document.createElement('button');
  add.type = 'button';
  add.textContent = `Add ${((schema['items'] as Schema)['title'] as string | undefined) ?? 'item'}`;
  set.append(legend, list, add);
  const items: { row: HTMLElement; field: Field }[] = [];
  let present = false;
  const push = (value: unknown): void => {
    const row = document.createElement('div');
    row.className = 'item';
    const child = field(schema['items'] as Schema, `${items.length + 1}.`, `${path}.${items.length}`, onEdit);
    const remove = document.createElement('button');
    remove.type = 'button';
    remove.textContent = 'Remove';
    remove.addEventListener('click', () => {
      items.splice(
        items.findIndex((i) => i.row === row),
        1,
      );
      row.remove();
      onEdit();
    });
    row.append(child.element, remove);
    list.append(row);
    child.set(value);
    items.push({ row, field: child });
  };
  add.addEventListener('click', () => {
    present = true;
    push(undefined);
    onEdit();
  });
  return {
    element: set,
    set: (v) => {
      present = Array.isArray(v);
      const values = Array.isArray(v) ? v : [];
      while (items.length > values.length) items.pop()!.row.remove();
      values.forEach((value, i) => (i < items.length ? items[i]!.field.set(value) : push(value)));
    },
    // An optional list nobody wrote stays absent; an empty one written stays [].
    get: () => (present || items.length > 0 ? items.map((i) => i.field.get()).filter((v) => v !== undefined) : undefined),
  };
}
