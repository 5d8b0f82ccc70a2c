"""Money (docs/model.md, step 8): cost arithmetic and the figures a reader compares.

- ``finance``: annualised capital, fixed opex and energy, per hour.
- ``api``: an API system, priced per million tokens.
- ``metrics``: the derived figures (cost per accepted request and the rest) from a fleet's outcome.
"""
