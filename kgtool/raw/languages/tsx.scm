; TSX adds JSX to TypeScript (typescript.scm is loaded first). Capture names: see base.py.

; <Widget/> calls the component; lower-case tags are host elements.
(jsx_opening_element
  name: (_) @call.function
  (#match? @call.function "^[A-Z]")) @call
(jsx_self_closing_element
  name: (_) @call.function
  (#match? @call.function "^[A-Z]")) @call
