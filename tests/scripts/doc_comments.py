# SPDX-License-Identifier: MIT
"""doc_comments.py - every public function of the headers carries the one doc-comment form:
a /** ... */ block right before the declaration with a `@param NAME` line for each parameter
(one name a line, as clang's -Wdocumentation reads them), a `@return` unless the function
returns void, and a `Thread-safety:` line. Public functions are the BB_API declarations and
the `static inline` definitions (blockbloom_view.h). A @param naming no parameter fails too,
so renames cannot leave stale lines.

    python3 tests/scripts/doc_comments.py HEADER...          check the headers
    python3 tests/scripts/doc_comments.py --self-test HEADER  the check fails on copies of
        HEADER with one function's comment, @param line, @return or Thread-safety removed
"""
import re
import sys

DECL = re.compile(r"^(BB_API\b|static inline\b)", re.M)
IDENT = re.compile(r"[A-Za-z_]\w*")


def split_top(text):
    """Split a parameter list at the commas outside parentheses and brackets."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return [p.strip() for p in parts if p.strip()]


def param_name(p):
    """The name a parameter declares: `int (*next)(void *)` -> next, `uint8_t k[16]` -> k."""
    m = re.match(r"[^(]*\(\s*\*\s*(\w+)\s*\)", p)
    if m:
        return m.group(1)
    p = re.sub(r"\[[^\]]*\]", "", p).strip()
    names = IDENT.findall(p)
    return names[-1] if names else None


def functions(text):
    """(name, returns_void, params, comment or None, line) of each public function."""
    for m in DECL.finditer(text):
        start = m.start()
        end_semi, end_brace = text.find(";", start), text.find("{", start)
        ends = [e for e in (end_semi, end_brace) if e >= 0]
        decl = text[start:min(ends)]
        if "(" not in decl:
            continue
        head, rest = decl.split("(", 1)
        name = IDENT.findall(head)[-1]
        ret = head[: head.rfind(name)]
        ret = re.sub(r"\b(BB_API|static|inline|const)\b", "", ret).strip()
        depth, i = 1, 0
        while depth and i < len(rest):
            depth += {"(": 1, ")": -1}.get(rest[i], 0)
            i += 1
        plist = rest[: i - 1]
        params = []
        for p in split_top(plist):
            if p in ("void", "..."):
                continue
            params.append(param_name(p))
        before = text[:start].rstrip()
        comment = None
        if before.endswith("*/"):
            open_at = before.rfind("/*")
            if before.startswith("/**", open_at) and "*/" not in before[open_at:-2]:
                comment = before[open_at:]
        line = text.count("\n", 0, start) + 1
        yield name, ret == "void", params, comment, line


def problems(text, path):
    out = []
    for name, is_void, params, comment, line in functions(text):
        where = f"{path}:{line}: {name}"
        if comment is None:
            out.append(f"{where}: no /** doc comment right before the declaration")
            continue
        documented = set(re.findall(r"@param\s+(\w+)", comment))
        for p in params:
            if p not in documented:
                out.append(f"{where}: no @param {p}")
        for d in sorted(documented - set(params)):
            out.append(f"{where}: @param {d} is not a parameter")
        if not is_void and "@return" not in comment:
            out.append(f"{where}: returns a value but has no @return")
        if "Thread-safety:" not in comment:
            out.append(f"{where}: no Thread-safety: line")
    return out


def self_test(path):
    text = open(path, encoding="utf-8").read()
    fns = [f for f in functions(text) if f[3] is not None]
    if not fns or problems(text, path):
        print(f"doc_comments: self-test needs a header that passes: {path}", file=sys.stderr)
        return 1
    name, is_void, params, comment, _ = next(f for f in fns if f[2] and not f[1])
    cases = {
        "comment removed": text.replace(comment, "", 1),
        "@param line removed": text.replace(comment, re.sub(r"@param\s+" + params[0] + r"\b",
                                                              "@parm " + params[0], comment), 1),
        "@return removed": text.replace(comment, comment.replace("@return", "returns"), 1),
        "Thread-safety removed": text.replace(comment, comment.replace("Thread-safety:", "TS:"), 1),
    }
    failed = 0
    for what, mutated in cases.items():
        got = problems(mutated, path)
        if not got:
            print(f"doc_comments: self-test: {name} with {what} passed the check", file=sys.stderr)
            failed = 1
        else:
            print(f"{what}: {got[0]}")
    return failed


def main(argv):
    if argv and argv[0] == "--self-test":
        return max(self_test(p) for p in argv[1:])
    found, n = [], 0
    for path in argv:
        text = open(path, encoding="utf-8").read()
        n += sum(1 for _ in functions(text))
        found += problems(text, path)
    for p in found:
        print(p, file=sys.stderr)
    print(f"doc_comments: {n} public functions, {len(found)} problems")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
