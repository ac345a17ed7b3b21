; JSX, for the JavaScript and TSX grammars (plain TypeScript has no JSX nodes).
; Capture names: see base.py.

; <Widget/> calls the component; lower-case tags are host elements.
(jsx_opening_element
  name: (_) @call.function
  (#match? @call.function "^[A-Z]")) @call
(jsx_self_closing_element
  name: (_) @call.function
  (#match? @call.function "^[A-Z]")) @call
