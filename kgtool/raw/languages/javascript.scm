; kgtool's layer-1 query for JavaScript (.js .mjs .cjs .jsx). Capture names: see base.py.

; ---- definitions -------------------------------------------------------------------------

(class_declaration
  name: (identifier) @name
  (class_heritage (_) @base)?) @definition.class

; const Foo = class { ... }: the class is known by the binding, not by its own name.
(variable_declarator
  name: (identifier) @name
  value: (class (class_heritage (_) @base)?)) @definition.class

; export default class { ... }: an anonymous default export is the symbol "default".
(export_statement
  "default" @name
  value: (class (class_heritage (_) @base)?) @definition.class)

(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function

(export_statement
  "default" @name
  value: [(function_expression) (arrow_function) (generator_function)] @definition.function)

; const f = () => ...; const g = function () {...}
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function

; exports.f = function () {...} / module.exports.f = () => ...
(assignment_expression
  left: (member_expression
    object: (_) @_exports
    property: (property_identifier) @name)
  right: [(arrow_function) (function_expression) (generator_function)]
  (#match? @_exports "^(module\\.)?exports$")) @definition.function

; Methods only in class bodies: methods of object literals are not symbols.
(class_body (method_definition name: (_) @name) @definition.function)

(class_body
  (field_definition
    property: (_) @name
    value: [(arrow_function) (function_expression) (generator_function)]) @definition.function)

; A top-level binding of a wrapped function is that function: React.memo((props) => ...),
; forwardRef(function (props, ref) {...}), memo(forwardRef(...)); not [1, 2].map(...).
(program
  (lexical_declaration
    (variable_declarator
      name: (identifier) @name
      value: (call_expression
        function: [(identifier) (member_expression object: (identifier))]
        arguments: (arguments
          [(arrow_function) (function_expression)
           (call_expression
             arguments: (arguments [(arrow_function) (function_expression)]))]))) @definition.function))
(program
  (export_statement
    (lexical_declaration
      (variable_declarator
        name: (identifier) @name
        value: (call_expression
          function: [(identifier) (member_expression object: (identifier))]
          arguments: (arguments
            [(arrow_function) (function_expression)
             (call_expression
               arguments: (arguments [(arrow_function) (function_expression)]))]))) @definition.function)))

; ---- calls -------------------------------------------------------------------------------

; require() and import() load modules: they are imports, not calls.
(call_expression
  function: (_) @call.function
  (#not-match? @call.function "^(require|import)$")) @call

(new_expression constructor: (_) @call.function) @new

; <Widget/> calls the component; lower-case tags are host elements.
(jsx_opening_element
  name: (_) @call.function
  (#match? @call.function "^[A-Z]")) @call
(jsx_self_closing_element
  name: (_) @call.function
  (#match? @call.function "^[A-Z]")) @call

; ---- imports -----------------------------------------------------------------------------

(import_statement) @import
(export_statement) @import

(call_expression
  function: (identifier) @_require
  arguments: (arguments . (string))
  (#eq? @_require "require")) @import
(call_expression
  function: (import)
  arguments: (arguments . (string))) @import

; ---- receiver types ----------------------------------------------------------------------

(variable_declarator
  name: (identifier) @assign.var
  value: (new_expression constructor: (_) @call.function)) @assign
(assignment_expression
  left: [(identifier) (member_expression)] @assign.var
  right: (new_expression constructor: (_) @call.function)) @assign
(field_definition
  property: (property_identifier) @assign.var
  value: (new_expression constructor: (_) @call.function)) @assign

; A decorator's calls are made where the decorated definition stands (see base.Decorators).
(decorator) @decorator
