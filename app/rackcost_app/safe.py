"""Text from a scenario or a file, shown by Streamlit as written: never a link, an image, HTML or a directive.

Streamlit renders Markdown (GitHub-flavoured, with LaTeX between ``$``, and its own directives ``:red[...]``,
``:material/icon:``) in ``st.markdown``, ``st.caption``, titles and headers, alerts and toasts, and in every widget
label, tab and expander label, metric label and value, radio option and help tooltip. A system named
``![x](http://attacker.example/p.png)`` would make the browser fetch that URL. Every user string (scenario, system
and demand-point names, sources and notes, file names, messages that quote them) goes through :func:`md` before it is
put into one of these; plain-text elements (``st.text``, ``st.code``, ``st.dataframe`` cells and column labels,
``st.selectbox`` options, text inputs, chart texts drawn by Vega) take it as it is.
"""

from __future__ import annotations

import re

__all__ = ["md"]

_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
"""Every ASCII punctuation character: CommonMark lets any of them be backslash-escaped, and an escaped one is shown
as itself and starts nothing (no ``[`` of a link, ``!`` of an image, ``<`` of HTML, ``$`` of mathematics, ``:`` of a
Streamlit directive, emphasis, code, heading or list). Escaping ``:`` and ``.`` also breaks the bare URLs
(``http://...``, ``www.``) and e-mail addresses that GitHub-flavoured Markdown would turn into links."""


def md(value: object) -> str:
    """``value`` as Markdown text that Streamlit shows exactly as written, on one line.

    Every ASCII punctuation character is backslash-escaped, and each run of white space (line breaks included, which
    could start a heading, a list or a code block) becomes one space.

    Examples
    --------
    >>> print(md("![x](http://a.example/p.png)"))
    \\!\\[x\\]\\(http\\:\\/\\/a\\.example\\/p\\.png\\)
    >>> print(md(":red[alarm] :material/home: $x$ <img src=y>"))
    \\:red\\[alarm\\] \\:material\\/home\\: \\$x\\$ \\<img src\\=y\\>
    >>> print(md("Jalapeño\\n\\n# not a heading"))
    Jalapeño \\# not a heading
    """
    return _PUNCTUATION.sub(r"\\\1", " ".join(str(value).split()))
