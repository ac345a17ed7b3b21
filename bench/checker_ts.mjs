// The TypeScript 5 compiler's answer for every call site of a repository, for
// bench/checker_calls.py: one JSON line per site.
//
// Usage: node checker_ts.mjs TYPESCRIPT_MODULE ROOT FILE_LIST [TYPE_ROOT]
//
// TYPESCRIPT_MODULE is the path of an installed `typescript@5` package (the bench installs it
// in a cache folder, never in the repository); FILE_LIST names the repository's .ts/.tsx
// files, one per line, relative to ROOT (FILE_LIST.packages its package.json files,
// FILE_LIST.tsconfigs its tsconfig.json files); TYPE_ROOT a folder holding @types/node. One
// program per tsconfig over the files it includes, one more over the rest (with the root
// tsconfig's options). Each program's options are made permissive (no emit, lib checks
// skipped, bundler resolution), with a path mapping for each workspace package (package.json
// name -> its folder's src/), so that a call into another package of the monorepo resolves.
//
// Each line: {f, l, n, k, callers, decls, how}
//   f, l      the file (relative) and the 1-based line the call expression starts on
//   n         the callee's last name as written ("?" when it is no name)
//   k         "call", "new", "tag" (tagged template) or "jsx"
//   callers   the named declarations around the site, innermost first: [name, line]
//   decls     the callee's declarations: {f, l, n, kind}; f is "" outside the repository
//             (node_modules, the default library); kind is fn, class or value
//   how       "signature" (one callee: the first declaration that names one), "symbol"
//             (any of them: a union's members) or "none" (unresolved)

import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const [tsModule, root, listFile, typeRoot] = process.argv.slice(2);
const require = createRequire(import.meta.url);
const ts = require(tsModule);

const files = fs
  .readFileSync(listFile, "utf8")
  .split("\n")
  .filter((line) => line.length > 0);
const absRoot = path.resolve(root);

function readConfig(configPath) {
  // A tsconfig's options and files, or null when it cannot be read.
  if (!fs.existsSync(configPath)) return null;
  const read = ts.readConfigFile(configPath, ts.sys.readFile);
  if (read.error) return null;
  try {
    return ts.parseJsonConfigFileContent(read.config, ts.sys, path.dirname(configPath));
  } catch {
    return null;
  }
}

function workspacePaths() {
  // Every package.json of the repository outside node_modules names a package: map its name
  // to its src/ (or its folder) as a bundler with workspaces would find it.
  const paths = {};
  for (const file of fs
    .readFileSync(listFile + ".packages", "utf8")
    .split("\n")
    .filter(Boolean)) {
    let manifest;
    try {
      manifest = JSON.parse(fs.readFileSync(path.join(absRoot, file), "utf8"));
    } catch {
      continue;
    }
    if (typeof manifest.name !== "string") continue;
    const folder = path.dirname(file);
    const src = path.join(folder, "src");
    const hasSrc = fs.existsSync(path.join(absRoot, src));
    const base = hasSrc ? src : folder;
    paths[manifest.name] = [`./${base}/index.ts`, `./${base}/index.tsx`, `./${base}`];
    paths[`${manifest.name}/*`] = [`./${base}/*`, `./${folder}/*`];
  }
  return paths;
}

const workspaces = workspacePaths();

// The compiler options of a program: a tsconfig's, made permissive.
function permissive(base) {
  const options = { ...base };
  const mapped = { ...workspaces, ...(options.paths || {}) };
  Object.assign(options, {
    noEmit: true,
    skipLibCheck: true,
    allowJs: false,
    noResolve: false,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    jsx: ts.JsxEmit.Preserve,
    // Node's own modules and globals come from @types/node (installed beside typescript),
    // the browser's from the DOM library: calls into them are calls outside the repository.
    types: typeRoot ? ["node"] : [],
    typeRoots: typeRoot ? [typeRoot] : undefined,
    lib: [
      ...new Set([
        ...(options.lib || ["lib.es2022.d.ts"]),
        "lib.esnext.d.ts",
        "lib.dom.d.ts",
        "lib.dom.iterable.d.ts",
      ]),
    ],
    composite: false,
    declaration: false,
    isolatedDeclarations: false,
    incremental: false,
    paths: mapped,
  });
  if (!options.pathsBasePath) options.pathsBasePath = absRoot;
  delete options.rootDir;
  delete options.outDir;
  delete options.tsBuildInfoFile;
  delete options.project;
  delete options.configFilePath;
  return options;
}

// One program per tsconfig of the repository, over the files it includes (the nearest
// tsconfig that includes a file gets it), as the project's own checks see them; one more, with
// the root tsconfig's options, over the files no tsconfig includes. In a single program over
// every file, a monorepo's packages may lose their exports in some files (vuejs/core's tests).
function groups() {
  const wanted = new Set(files);
  const listed = fs.existsSync(listFile + ".tsconfigs")
    ? fs.readFileSync(listFile + ".tsconfigs", "utf8").split("\n").filter(Boolean)
    : [];
  listed.sort((a, b) => b.split("/").length - a.split("/").length || a.localeCompare(b));
  const assigned = new Set();
  const found = [];
  for (const config of listed) {
    const parsed = readConfig(path.join(absRoot, config));
    if (!parsed) continue;
    const mine = [];
    for (const name of parsed.fileNames) {
      const rel = path.relative(absRoot, path.resolve(name)).split(path.sep).join("/");
      if (wanted.has(rel) && !assigned.has(rel)) {
        assigned.add(rel);
        mine.push(rel);
      }
    }
    if (mine.length) found.push({ options: parsed.options, files: mine });
  }
  const rest = files.filter((f) => !assigned.has(f));
  if (rest.length) {
    const root = readConfig(path.join(absRoot, "tsconfig.json"));
    found.push({ options: root ? root.options : {}, files: rest });
  }
  return found;
}

let program;
let checker;

function relative(sourceFile) {
  if (program.isSourceFileDefaultLibrary(sourceFile)) return "";
  const file = path.resolve(sourceFile.fileName);
  if (file.split(path.sep).includes("node_modules")) return "";
  const rel = path.relative(absRoot, file);
  if (rel.startsWith("..") || path.isAbsolute(rel)) return "";
  return rel.split(path.sep).join("/");
}

function lineOf(node) {
  const sf = node.getSourceFile();
  return sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
}

function nameText(name) {
  if (!name) return "";
  if (ts.isIdentifier(name) || ts.isPrivateIdentifier(name)) return name.text;
  if (ts.isStringLiteral(name) || ts.isNumericLiteral(name)) return name.text;
  return "";
}

function isFunctionValue(node) {
  return (
    !!node &&
    (ts.isArrowFunction(node) || ts.isFunctionExpression(node))
  );
}

function isDefaultExport(node) {
  const mods = ts.canHaveModifiers(node) ? ts.getModifiers(node) || [] : [];
  return (
    mods.some((m) => m.kind === ts.SyntaxKind.ExportKeyword) &&
    mods.some((m) => m.kind === ts.SyntaxKind.DefaultKeyword)
  );
}

// A declaration as {f, l, n, kind}: what a callee or a caller is named by.
function describe(decl) {
  let node = decl;
  let kind = "value";
  if (ts.isConstructorDeclaration(node)) {
    node = node.parent; // a class and its constructor are the same callee
    kind = "class";
  } else if (isFunctionValue(node)) {
    const parent = node.parent;
    if (
      parent &&
      (ts.isVariableDeclaration(parent) ||
        ts.isPropertyDeclaration(parent) ||
        ts.isPropertyAssignment(parent)) &&
      parent.initializer === node
    ) {
      node = parent;
      kind = "fn";
    } else if (parent && ts.isExportAssignment(parent)) {
      return { f: relative(node.getSourceFile()), l: lineOf(node), n: "default", kind: "fn" };
    } else {
      return null; // an anonymous function: a value the checker cannot name
    }
  } else if (ts.isMethodDeclaration(node) && ts.isObjectLiteralExpression(node.parent)) {
    kind = "literal"; // an object literal's method: no kgtool symbol
  } else if (ts.isMethodSignature(node) && !ts.isInterfaceDeclaration(node.parent)) {
    kind = "value"; // a member of an anonymous object type: whatever function the value holds
  } else if (
    ts.isFunctionDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isMethodSignature(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  ) {
    kind = "fn";
  } else if (ts.isClassDeclaration(node) || ts.isClassExpression(node)) {
    kind = "class";
    if (ts.isClassExpression(node) && node.parent && ts.isVariableDeclaration(node.parent)) {
      node = node.parent;
    }
  } else if (
    (ts.isVariableDeclaration(node) ||
      ts.isPropertyDeclaration(node) ||
      ts.isPropertyAssignment(node)) &&
    node.initializer
  ) {
    if (isFunctionValue(node.initializer)) kind = "fn";
    else if (ts.isClassExpression(node.initializer)) kind = "class";
  }
  let name = nameText(node.name);
  if (!name && (ts.isFunctionDeclaration(node) || ts.isClassDeclaration(node))) {
    name = isDefaultExport(node) ? "default" : "";
  }
  if (!name) return null;
  const at = node.name || node;
  const sf = node.getSourceFile();
  const f = relative(sf);
  const described = { f, l: lineOf(at), n: name, kind };
  // Where outside: the library file, or the path below the last node_modules.
  if (!f) described.o = sf.fileName.split("node_modules/").pop().split("/").slice(-3).join("/");
  return described;
}

function aliased(symbol) {
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) {
    try {
      return checker.getAliasedSymbol(symbol);
    } catch {
      return symbol;
    }
  }
  return symbol;
}

function nameNode(expression) {
  let node = expression;
  while (
    ts.isParenthesizedExpression(node) ||
    ts.isNonNullExpression(node) ||
    ts.isAsExpression(node) ||
    ts.isTypeAssertionExpression(node) ||
    ts.isSatisfiesExpression?.(node)
  ) {
    node = node.expression;
  }
  if (ts.isPropertyAccessExpression(node)) return node.name;
  if (ts.isExpressionWithTypeArguments?.(node)) return nameNode(node.expression);
  return node;
}

function calleeName(expression) {
  const node = nameNode(expression);
  if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) return node.text;
  if (node.kind === ts.SyntaxKind.SuperKeyword) return "super";
  if (ts.isJsxNamespacedName?.(node)) return node.name.text;
  return "?";
}

function symbolDecls(node) {
  let symbol;
  try {
    symbol = checker.getSymbolAtLocation(node);
  } catch {
    return [];
  }
  symbol = aliased(symbol);
  return symbol && symbol.declarations ? symbol.declarations : [];
}

function resolveCallee(site, expression, kind) {
  const named = nameNode(expression);
  if (kind === "call" && ts.isIdentifier(named)) {
    // A name declared as a function value (``const f: T["member"] = (...) => ...``) calls
    // that function: its declared type may be a member of another type, which the resolved
    // signature names instead.
    const held = symbolDecls(named).filter(
      (d) => ts.isVariableDeclaration(d) && d.initializer && isFunctionValue(d.initializer),
    );
    const described = held.length === 1 ? describe(held[0]) : null;
    if (described && described.f) return { how: "signature", decls: [described] };
  }
  if (kind === "call") {
    let signature;
    try {
      signature = checker.getResolvedSignature(site);
    } catch {
      signature = undefined;
    }
    const decl = signature && signature.declaration;
    if (decl && !ts.isJSDocSignature?.(decl)) {
      const described = describe(decl);
      if (described) {
        // An overload's signature and its implementation are one callee: list them all.
        const others = (decl.symbol && decl.symbol.declarations) || [];
        const more = others.filter((d) => d !== decl).map(describe).filter(Boolean);
        return { how: "signature", decls: [described, ...more] };
      }
    }
  }
  if (named.kind === ts.SyntaxKind.SuperKeyword) {
    const type = checker.getTypeAtLocation(named);
    const decls = (type && type.symbol && type.symbol.declarations) || [];
    const described = decls.map(describe).filter(Boolean);
    return described.length ? { how: "symbol", decls: described } : { how: "none", decls: [] };
  }
  const decls = symbolDecls(named).map(describe).filter(Boolean);
  if (!decls.length) {
    // A symbol with declarations that name nothing (a parameter's function type...) is a
    // value; none at all is unresolved.
    const raw = symbolDecls(named);
    if (raw.length) {
      const outside = raw.every((d) => relative(d.getSourceFile()) === "");
      return outside
        ? { how: "symbol", decls: [{ f: "", l: 0, n: calleeName(expression), kind: "value" }] }
        : { how: "value", decls: [] };
    }
    return { how: "none", decls: [] };
  }
  return { how: kind === "new" || kind === "jsx" ? "signature" : "symbol", decls };
}

function callers(site) {
  const found = [];
  let node = site.parent;
  while (node && !ts.isSourceFile(node)) {
    if (ts.isDecorator(node)) {
      // A decorator's calls are made where the decorated definition stands.
      node = node.parent ? node.parent.parent : undefined;
      continue;
    }
    // Only what kgtool makes a symbol of: functions, classes, interfaces, enums, the
    // members of class bodies, and variables or fields holding a function or a class (or,
    // at the top, a call wrapping one); never an object literal's members.
    let name = "";
    const inClass = node.parent && ts.isClassLike(node.parent);
    const init = node.initializer;
    if (
      ts.isFunctionDeclaration(node) ||
      ts.isClassDeclaration(node) ||
      ts.isInterfaceDeclaration(node) ||
      ts.isEnumDeclaration(node) ||
      ((ts.isMethodDeclaration(node) ||
        ts.isGetAccessorDeclaration(node) ||
        ts.isSetAccessorDeclaration(node)) &&
        inClass) ||
      (ts.isPropertyDeclaration(node) && isFunctionValue(init)) ||
      (ts.isVariableDeclaration(node) &&
        init &&
        (isFunctionValue(init) || ts.isClassExpression(init) || ts.isCallExpression(init)))
    ) {
      name = nameText(node.name);
      if (!name && isDefaultExport(node)) name = "default";
    } else if (ts.isConstructorDeclaration(node)) {
      name = "constructor";
    } else if (ts.isExportAssignment(node)) {
      name = "default";
    }
    if (name) found.push([name, lineOf(node.name || node)]);
    node = node.parent;
  }
  return found;
}

const out = [];
function emit(site, expression, kind) {
  const sf = site.getSourceFile();
  const resolved = resolveCallee(site, expression, kind);
  out.push(
    JSON.stringify({
      f: relative(sf),
      l: lineOf(site),
      n: calleeName(expression),
      k: kind,
      callers: callers(site),
      decls: resolved.decls,
      how: resolved.how,
    }),
  );
  if (out.length >= 2000) flush();
}
function flush() {
  if (out.length) process.stdout.write(out.join("\n") + "\n");
  out.length = 0;
}

function visit(node) {
  if (ts.isCallExpression(node)) {
    const callee = node.expression;
    const isImport = callee.kind === ts.SyntaxKind.ImportKeyword;
    const isRequire = ts.isIdentifier(callee) && callee.text === "require";
    if (!isImport && !isRequire) emit(node, callee, "call");
  } else if (ts.isNewExpression(node)) {
    emit(node, node.expression, "new");
  } else if (ts.isTaggedTemplateExpression(node)) {
    emit(node, node.tag, "tag");
  } else if (ts.isJsxOpeningElement(node) || ts.isJsxSelfClosingElement(node)) {
    const tag = node.tagName;
    const text = tag.getText(node.getSourceFile());
    if (/^[A-Z]/.test(text)) emit(node, tag, "jsx");
  }
  ts.forEachChild(node, visit);
}

for (const group of groups()) {
  program = ts.createProgram(
    group.files.map((f) => path.join(absRoot, f)),
    permissive(group.options),
  );
  checker = program.getTypeChecker();
  for (const file of group.files) {
    if (file.endsWith(".d.ts")) continue;
    const sf = program.getSourceFile(path.join(absRoot, file));
    if (sf) visit(sf);
  }
  flush();
}
