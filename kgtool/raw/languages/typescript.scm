; kgtool's layer-1 query for TypeScript (.ts .mts .cts) and TSX (.tsx). Capture names: see base.py.
; The tsx grammar shares TypeScript's node types, so one query serves both.

; ---- definitions -------------------------------------------------------------------------

(class_declaration
  name: (type_identifier) @name
  (class_heritage
    (extends_clause value: (_) @base)?
    (implements_clause (_) @base)?)?) @definition.class

(abstract_class_declaration
  name: (type_identifier) @name
  (class_heritage
    (extends_clause value: (_) @base)?
    (implements_clause (_) @base)?)?) @definition.class

(variable_declarator
  name: (identifier) @name
  value: (class
    (class_heritage
      (extends_clause value: (_) @base)?
      (implements_clause (_) @base)?)?)) @definition.class

(export_statement
  "default" @name
  value: (class
    (class_heritage
      (extends_clause value: (_) @base)?
      (implements_clause (_) @base)?)?) @definition.class)

(interface_declaration
  name: (type_identifier) @name
  (extends_type_clause (_) @base)?) @definition.interface

(enum_declaration name: (identifier) @name) @definition.enum

(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function

(export_statement
  "default" @name
  value: [(function_expression) (arrow_function) (generator_function)] @definition.function)

(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function

(assignment_expression
  left: (member_expression
    object: (_) @_exports
    property: (property_identifier) @name)
  right: [(arrow_function) (function_expression) (generator_function)]
  (#match? @_exports "^(module\\.)?exports$")) @definition.function

(class_body (method_definition name: (_) @name) @definition.function)
; Declared members are symbols too: a call through the base or interface type binds to them.
(class_body (abstract_method_signature name: (_) @name) @definition.function)
(interface_body (method_signature name: (_) @name) @definition.function)

(class_body
  (public_field_definition
    name: (_) @name
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

(call_expression
  function: (_) @call.function
  (#not-match? @call.function "^(require|import)$")) @call

(new_expression constructor: (_) @call.function) @new

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

; ---- receiver types: a constructor, or a declared type --------------------------------------

(variable_declarator
  name: (identifier) @assign.var
  value: (new_expression constructor: (_) @call.function)) @assign
(assignment_expression
  left: [(identifier) (member_expression)] @assign.var
  right: (new_expression constructor: (_) @call.function)) @assign
(public_field_definition
  name: (property_identifier) @assign.var
  value: (new_expression constructor: (_) @call.function)) @assign

(variable_declarator
  name: (identifier) @assign.var
  type: (type_annotation (_) @call.function)) @assign
(public_field_definition
  name: (property_identifier) @assign.var
  type: (type_annotation (_) @call.function)) @assign
(required_parameter
  pattern: (identifier) @assign.var
  type: (type_annotation (_) @call.function)) @assign
(optional_parameter
  pattern: (identifier) @assign.var
  type: (type_annotation (_) @call.function)) @assign

; A decorator's calls are made where the decorated definition stands (see base.Decorators).
(decorator) @decorator
