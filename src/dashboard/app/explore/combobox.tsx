// A type-ahead that chooses one thing by what people know (a college's name, a course's code or
// title): the ARIA combobox pattern (a text field with a list box of options), driven from the
// keyboard with the arrow keys, Enter and Escape, and announced to screen readers.
import { useRef, useState } from "preact/hooks";

export interface Option<T> {
  key: string;
  label: string;
  detail?: string;
  value: T;
}

interface ComboboxProps<T> {
  id: string;
  label: string;
  hint?: string;
  placeholder?: string;
  /** The chosen option's text, shown in the field. */
  chosen: string;
  search: (text: string) => Promise<Option<T>[]>;
  /** An option offered after the matches, from the text itself ("Add PHIL 99 as typed"). */
  extra?: (text: string) => Option<T> | null;
  onChoose: (value: T) => void;
  /** Empty the field after a choice (adding courses to a list). */
  clearOnChoose?: boolean;
}

export function Combobox<T>(props: ComboboxProps<T>) {
  const { id, label, hint, placeholder, chosen, search, extra, onChoose, clearOnChoose = false } = props;
  const [text, setText] = useState<string | null>(null);
  const [options, setOptions] = useState<Option<T>[] | null>(null);
  const [active, setActive] = useState(-1);
  const round = useRef(0);
  const listId = `${id}-options`;
  const shown = text ?? chosen;
  const open = options !== null && options.length > 0;

  const find = (next: string) => {
    setText(next);
    setActive(-1);
    const mine = ++round.current;
    const trimmed = next.trim();
    if (trimmed.length < 2) {
      setOptions(null);
      return;
    }
    const withExtra = (found: Option<T>[]) => {
      const more = extra?.(trimmed);
      return more && !found.some((option) => option.label.toUpperCase().startsWith(trimmed.toUpperCase()))
        ? [...found, more]
        : found;
    };
    void search(trimmed).then(
      (found) => mine === round.current && setOptions(withExtra(found)),
      () => mine === round.current && setOptions(withExtra([])),
    );
  };
  const choose = (option: Option<T>) => {
    round.current++;
    setOptions(null);
    setActive(-1);
    setText(clearOnChoose ? "" : null);
    onChoose(option.value);
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (!open) return;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      const step = event.key === "ArrowDown" ? 1 : -1;
      setActive((current) => (current + step + options.length) % options.length);
    } else if (event.key === "Enter" && active >= 0) {
      event.preventDefault();
      choose(options[active]);
    } else if (event.key === "Escape") {
      event.preventDefault();
      setOptions(null);
      setActive(-1);
    }
  };
  const status =
    options === null
      ? ""
      : options.length === 0
        ? "No match. Try another spelling."
        : `${options.length} ${options.length === 1 ? "suggestion" : "suggestions"}: use the arrow keys and Enter to choose.`;

  return (
    <div class="combobox">
      <label for={id}>{label}</label>
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      <input
        id={id}
        type="text"
        role="combobox"
        autoComplete="off"
        spellcheck={false}
        aria-autocomplete="list"
        aria-expanded={open}
        aria-controls={listId}
        aria-activedescendant={open && active >= 0 ? `${listId}-${active}` : undefined}
        aria-describedby={[hint ? `${id}-hint` : "", `${id}-status`].filter(Boolean).join(" ")}
        placeholder={placeholder}
        value={shown}
        onInput={(event) => find(event.currentTarget.value)}
        onKeyDown={onKeyDown}
        onBlur={() => window.setTimeout(() => setOptions(null), 150)}
      />
      <p id={`${id}-status`} class="sr-only" aria-live="polite">
        {status}
      </p>
      {options !== null && options.length === 0 && (
        <p class="hint" aria-hidden="true">
          No match. Try another spelling.
        </p>
      )}
      <div id={listId} role="listbox" aria-label={label} class="options" hidden={!open}>
        {(options ?? []).map((option, index) => (
          <div
            key={option.key}
            id={`${listId}-${index}`}
            role="option"
            tabIndex={-1}
            aria-selected={index === active}
            class={index === active ? "option active" : "option"}
            onMouseDown={(event) => event.preventDefault()}
            onClick={() => choose(option)}
            onKeyDown={(event) => event.key === "Enter" && choose(option)}
          >
            <span class="option-label">{option.label}</span>
            {option.detail && <span class="option-detail">{option.detail}</span>}
          </div>
        ))}
      </div>
    </div>
  );
}
