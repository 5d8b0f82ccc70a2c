"""The decision report: chart specifications shared with the dashboard (``charts``), block types (``blocks``), the
sections that fill them (``content``), one renderer per format (``html``, ``markdown``) and the writer (``write``).

Named ``reporting`` rather than ``report`` because :func:`rackcost.report` is the public function that writes a
report: a subpackage of the same name would replace it as the attribute ``rackcost.report`` once imported.
"""
