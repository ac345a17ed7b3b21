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

; A type alias is a symbol an import names and a change edits ("add a member to the
; KnownProvider union"); nothing calls it, so no call binds to it by name.
(type_alias_declaration name: (type_identifier) @name) @definition.type

; Declared members are symbols too: a call through the base or interface type binds to them.
(class_body (abstract_method_signature name: (_) @name) @definition.function)
(interface_body (method_signature name: (_) @name) @definition.function)

; A class's field holding a function (named by its name field: nested, it cost a fifth of
; the query's compile time).
(public_field_definition
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function

; ---- receiver types: a constructor, a call's result, or a declared type ---------------------

(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @assign.var
  value: [(call_expression) (new_expression)] @assign.call) @assign

; Declared types of variables, fields, interface properties and parameters (a constructor's
; parameter property is a field too: see assign_var).
(variable_declarator
  name: (identifier) @assign.var
  type: (type_annotation) @assign.type) @assign
(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @assign.var
  type: (type_annotation) @assign.type) @assign
(property_signature
  name: (property_identifier) @assign.var
  type: (type_annotation) @assign.type) @assign
(required_parameter
  pattern: (identifier) @assign.var
  type: (type_annotation) @assign.type) @assign
(optional_parameter
  pattern: (identifier) @assign.var
  type: (type_annotation) @assign.type) @assign

; A member declared with a function type (``bold: (s: string) => string``) holds a function
; value: a call of it goes through the value, and no method of that name is guessed for it.
(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @assign.var
  type: (type_annotation (function_type) @assign.dynamic)) @assign
(property_signature
  name: (property_identifier) @assign.var
  type: (type_annotation (function_type) @assign.dynamic)) @assign

; What an array declared as ``T[]`` holds: written ``items[]`` (``this.items[]`` for a field).
(variable_declarator
  name: (identifier) @assign.var
  type: (type_annotation (array_type . (_) @assign.type))) @assign @element
(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @assign.var
  type: (type_annotation (array_type . (_) @assign.type))) @assign @element
(property_signature
  name: (property_identifier) @assign.var
  type: (type_annotation (array_type . (_) @assign.type))) @assign @element
(required_parameter
  pattern: (identifier) @assign.var
  type: (type_annotation (array_type . (_) @assign.type))) @assign @element
(optional_parameter
  pattern: (identifier) @assign.var
  type: (type_annotation (array_type . (_) @assign.type))) @assign @element

; A getter's declared type is its property's: ``get store(): Store`` types ``this.store``.
(method_definition
  "get"
  name: (property_identifier) @assign.var
  return_type: (type_annotation) @assign.type) @assign

; Declared return types: of functions, methods and their signatures (one pattern for every
; kind of node with a return type compiles in a tenth of the time of one pattern each; an
; interface's call signature is left out by returns_from).
(_ return_type: (type_annotation) @assign.type) @assign @returns

; const f = (DEV ? g2 : g) as typeof g: f holds a function of g's type, as the compiler reads it.
(variable_declarator
  name: (identifier) @assign.var
  value: (as_expression (type_query [(identifier) (member_expression)] @assign.value))) @assign

; function f<T>(x: T), class Box<T>: T names no class where it is declared (see value_facts).
(_ type_parameters: (type_parameters (type_parameter name: (type_identifier) @value.type_parameter))) @value
