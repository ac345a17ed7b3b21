; JavaScript (.js .mjs .cjs .jsx), on top of ecmascript.scm and jsx.scm. Capture names: see base.py.

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

(class_body
  (field_definition
    property: (_) @name
    value: [(arrow_function) (function_expression) (generator_function)]) @definition.function)

(field_definition
  property: (property_identifier) @assign.var
  value: (new_expression constructor: (_) @call.function)) @assign
