"""The numeric core: pure functions and plain containers over numpy arrays, one module per step of the model.

Never sees a file, a widget, pydantic, PyYAML or pandas; imports only the leaf modules (``units``) and itself.
``performance`` (steps 1-2), ``operating_point`` (3), ``queueing`` and ``routing`` (4), ``sizing`` (5), ``demand``
(6), ``power`` (7), ``finance`` (8), ``api``, ``fleet`` (5-8 as named steps), ``metrics`` (derived columns),
``site`` (a site's power budget), ``simulation`` (the referee's engines), ``inputs`` and ``outcomes``
(the containers in and out).
"""
