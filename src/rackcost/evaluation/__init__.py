"""The evaluation of a scenario: the chain that runs every system through the model, and the tables it fills.

``chain`` (plan and run, every system, API ones included), ``api_systems``, ``compare`` (claim vs decision,
comparability warnings), ``columns`` (the registry of result columns: name, unit, table, description) and
``results`` (formatting only). May import the scenario and model layers and the leaf modules.
"""
