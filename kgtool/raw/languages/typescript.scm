; TypeScript (.ts .mts .cts) and TSX (.tsx), on top of ecmascript.scm (and jsx.scm for TSX):
; classes name a type_identifier, heritage splits into extends and implements, and declared
; types say what a receiver is. Capture names: see base.py.

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

; Declared members are symbols too: a call through the base or interface type binds to them.
(class_body (abstract_method_signature name: (_) @name) @definition.function)
(interface_body (method_signature name: (_) @name) @definition.function)

(class_body
  (public_field_definition
    name: (_) @name
    value: [(arrow_function) (function_expression) (generator_function)]) @definition.function)

; ---- receiver types: a constructor, or a declared type --------------------------------------

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
