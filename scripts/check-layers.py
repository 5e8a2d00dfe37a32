#!/usr/bin/env python3
"""Fails when a crate's modules import each other in a circle, or when a
source file is over 600 lines without saying why.

    python3 scripts/check-layers.py            # check every crate
    python3 scripts/check-layers.py --graph    # also print each crate's layers

A crate's modules should form layers whose imports only point down, so that
a reader can start at the top and never be sent back up. The check reads each
crate's `src/` (build.rs and the tests are not modules of a crate): a file is
one node, and an arrow goes from a file to every file whose module it names,
in a `use` declaration or in a path written out in the code (`crate::a::b`,
`super::c`, `self::d`, or a child module's name after `mod d;`). A path to an
item that the crate root re-exports (`pub use`) counts as a path to the
module that defines it. Comments and string literals are skipped, and
`super` inside an inline `mod tests { … }` counts as the file itself.

A cycle of arrows is reported with the lines that draw each of its arrows,
so that whoever breaks it can see which import to move.

A source file may be over 600 lines only where one concern needs it; it then
says so in its opening `//!` comment, in a sentence containing "600 lines".

No crate in the registries does this for three crates at once without a
nightly toolchain or a build of the whole workspace (cargo-modules runs
rust-analyzer's analysis, minutes on this project's machines); this script
reads the sources in well under a second.
"""

import re
import sys
from pathlib import Path

MAX_LINES = 600
CRATES = ["format", "collector", "site"]


def strip_comments_and_strings(text):
    """Returns text with comments and string/char literals blanked out,
    keeping every newline so that line numbers stay right."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            i = j
            continue
        if text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append("\n" * text.count("\n", i, j))
            i = j
            continue
        m = re.match(r'b?r(#*)"', text[i:i + 260]) if c in "rb" and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")) else None
        if m:
            end = '"' + m.group(1)
            j = text.find(end, i + m.end())
            j = n if j < 0 else j + len(end)
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j
            continue
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j += 1
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j
            continue
        if c == "'":
            m = re.match(r"'(\\.[^']*|[^\\'])'", text[i:i + 12])
            if m:
                out.append("' '")
                i += m.end()
                continue
        out.append(c)
        i += 1
    return "".join(out)


def expand_use_tree(tree):
    """`a::{b, c::{d, e}}` -> ['a::b', 'a::c::d', 'a::c::e'] (renames and
    globs are kept as the path before them)."""
    tree = re.sub(r"\s+as\s+\w+", "", tree)
    tree = re.sub(r"\s+", "", tree)
    depth, start = 0, None
    for k, ch in enumerate(tree):
        if ch == "{":
            if depth == 0:
                start = k
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                prefix = tree[:start]
                inner = tree[start + 1:k]
                parts, d, last = [], 0, 0
                for q, ch2 in enumerate(inner):
                    if ch2 == "{":
                        d += 1
                    elif ch2 == "}":
                        d -= 1
                    elif ch2 == "," and d == 0:
                        parts.append(inner[last:q])
                        last = q + 1
                parts.append(inner[last:])
                paths = []
                for p in parts:
                    if not p:
                        continue
                    if p == "self":
                        paths.append(prefix.rstrip(":"))
                    else:
                        paths.extend(expand_use_tree(prefix + p))
                return paths
    return [tree.rstrip("*").rstrip(":")]


class Crate:
    def __init__(self, root_dir):
        self.src = root_dir / "src"
        self.files = {}  # module path tuple -> Path
        for p in sorted(self.src.rglob("*.rs")):
            rel = p.relative_to(self.src).with_suffix("")
            parts = list(rel.parts)
            if parts[-1] == "mod":
                parts.pop()
            if parts in (["lib"], ["main"]):
                if parts == ["main"] and (self.src / "lib.rs").exists():
                    continue  # a binary on top of the library, outside its graph
                parts = []
            if len(parts) == 1 and parts[0] == "main":
                continue
            self.files[tuple(parts)] = p
        self.texts = {m: strip_comments_and_strings(p.read_text()) for m, p in self.files.items()}
        self.reexports = {m: self._pub_uses(m) for m in self.files}

    def name(self, module):
        return str(self.files[module].relative_to(self.src.parent.parent))

    def _uses(self, module):
        """(line, path text, is_pub, inline depth) of each `use` in a file."""
        text = self.texts[module]
        for m in re.finditer(r"(?m)^\s*(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", text):
            line = text.count("\n", 0, m.start(2)) + 1
            for path in expand_use_tree(m.group(2)):
                yield line, path, bool(m.group(1)), self._inline_depth(text, m.start())

    def _pub_uses(self, module):
        out = {}
        for _line, path, is_pub, _depth in self._uses(module):
            if is_pub:
                segs = path.split("::")
                out[segs[-1]] = (self.absolute(module, segs, 0) or [None])
        return out

    @staticmethod
    def _inline_depth(text, pos):
        """How many inline `mod x { … }` blocks enclose pos."""
        depth, stack = 0, []
        for m in re.finditer(r"\bmod\s+\w+\s*\{|\{|\}", text[:pos]):
            tok = m.group(0)
            if tok == "}":
                if stack and stack.pop():
                    depth -= 1
            elif tok.startswith("mod"):
                stack.append(True)
                depth += 1
            else:
                stack.append(False)
        return depth

    def children(self, module):
        return {m[-1] for m in self.files if len(m) == len(module) + 1 and m[:len(module)] == module}

    def absolute(self, module, segs, inline_depth):
        """The absolute module path a written path starts from, or None
        where it names something outside the crate."""
        head = segs[0]
        if head == "crate":
            return list(segs[1:])
        if head == "self":
            return list(module) + list(segs[1:]) if inline_depth == 0 else None
        if head == "super":
            ups = 0
            while ups < len(segs) and segs[ups] == "super":
                ups += 1
            ups -= inline_depth
            if ups <= 0:
                return None  # `super` of an inline module: the file itself
            if ups > len(module):
                return None
            return list(module[:len(module) - ups]) + list(segs[ups + inline_depth:])
        if head in self.children(module):
            return list(module) + list(segs)
        return None

    def resolve(self, absolute, seen=0):
        """The file that defines what an absolute path names."""
        best = ()
        for k in range(len(absolute), -1, -1):
            if tuple(absolute[:k]) in self.files:
                best = tuple(absolute[:k])
                rest = absolute[k:]
                break
        if rest and seen < 8:
            target = self.reexports.get(best, {}).get(rest[0])
            if target and target[0] is not None:
                return self.resolve(list(target) + list(rest[1:]), seen + 1)
        return best

    def edges(self):
        """{(from, to): [line, …]} between different files."""
        out = {}
        for module, text in self.texts.items():
            refs = []
            aliases = {}  # a name a `use` brings into scope -> its absolute path
            for line, path, _pub, depth in self._uses(module):
                segs = path.split("::")
                refs.append((line, segs, depth))
                absolute = self.absolute(module, segs, depth)
                if absolute and depth == 0 and segs[-1] not in ("self", "super", "crate"):
                    aliases[segs[-1]] = absolute
            use_spans = [m.span() for m in re.finditer(r"(?m)^\s*(pub(?:\([^)]*\))?\s+)?use\s+[^;]+;", text)]
            kids = self.children(module)
            heads = ["crate", "super", "self"] + sorted(kids | set(aliases))
            pattern = r"(?<![\w:])((?:%s)(?:::\w+)+)" % "|".join(map(re.escape, heads))
            for m in re.finditer(pattern, text):
                if any(a <= m.start() < b for a, b in use_spans):
                    continue
                if re.match(r"\s*mod\s*$", text[max(0, m.start() - 8):m.start()]):
                    continue
                line = text.count("\n", 0, m.start()) + 1
                refs.append((line, m.group(1).split("::"), self._inline_depth(text, m.start())))
            for line, segs, depth in refs:
                if segs[0] in aliases and segs[0] not in kids:
                    absolute = aliases[segs[0]] + segs[1:]
                else:
                    absolute = self.absolute(module, segs, depth)
                if absolute is None:
                    continue
                target = self.resolve(absolute)
                if target != module:
                    out.setdefault((module, target), []).append(line)
        return out


def strongly_connected(nodes, edges):
    """Tarjan's algorithm, iteratively."""
    graph = {n: [] for n in nodes}
    for a, b in edges:
        graph[a].append(b)
    index, low, on, stack, comps, counter = {}, {}, set(), [], [], [0]
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == node:
                            break
                    comps.append(comp)
            elif nxt not in index:
                index[nxt] = low[nxt] = counter[0]
                counter[0] += 1
                stack.append(nxt)
                on.add(nxt)
                work.append((nxt, iter(graph[nxt])))
            elif nxt in on:
                low[node] = min(low[node], index[nxt])
    return comps


def layers(nodes, edges):
    """Depth of each node above the bottom layer (for --graph)."""
    below = {n: {b for (a, b) in edges if a == n} for n in nodes}
    depth = {}

    def d(n):
        if n not in depth:
            depth[n] = 0
            depth[n] = 1 + max((d(b) for b in below[n]), default=-1)
        return depth[n]

    for n in nodes:
        d(n)
    return depth


def main():
    repo = Path(__file__).resolve().parent.parent
    show_graph = "--graph" in sys.argv[1:]
    failures = 0
    for crate_name in CRATES:
        crate = Crate(repo / crate_name)
        edges = crate.edges()
        nodes = list(crate.files)
        for comp in strongly_connected(nodes, edges):
            if len(comp) < 2:
                continue
            failures += 1
            names = sorted(crate.name(m) for m in comp)
            print(f"{crate_name}: a module circle of {len(comp)} files: {', '.join(names)}")
            for (a, b), lines in sorted(edges.items(), key=lambda e: (crate.name(e[0][0]), crate.name(e[0][1]))):
                if a in comp and b in comp:
                    where = ", ".join(str(x) for x in sorted(set(lines))[:6])
                    print(f"  {crate.name(a)} -> {crate.name(b)} (line {where})")
        for module, path in crate.files.items():
            count = path.read_text().count("\n")
            if count > MAX_LINES:
                opening = "\n".join(l for l in path.read_text().splitlines()[:40] if l.startswith("//!"))
                if "600 lines" not in opening:
                    failures += 1
                    print(f"{crate.name(module)}: {count} lines, over {MAX_LINES}, and its opening //! comment does not say why (a sentence containing \"600 lines\")")
        if show_graph:
            depth = layers(nodes, edges)
            print(f"{crate_name}: layers, top first")
            for level in sorted(set(depth.values()), reverse=True):
                print(f"  {level}: " + ", ".join(sorted(crate.name(m) for m in nodes if depth[m] == level)))
    if failures:
        print(f"check-layers: {failures} problem(s)", file=sys.stderr)
        return 1
    print("check-layers: every crate's modules import one way; no source file over 600 lines without a reason")
    return 0


if __name__ == "__main__":
    sys.exit(main())
