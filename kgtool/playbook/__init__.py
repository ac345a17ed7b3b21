"""Layer 4: playbooks, short recipes for recurring tasks whose pointers must resolve.

``parse`` reads front matter (with the line of every value), ``layer1`` is the view of the
code graph pointers resolve against, ``resolve`` decides each pointer's outcome, ``suggest``
says what a missing pointer probably became, ``check`` puts them together, and ``fix`` and
``new`` write playbooks.
"""
