"""The interestingness pages' own helpers, shared by the study admin (``pages/interestingness.py``), the
analysis page and the participant's page, and by no other system: the study store and link secret
(:mod:`.store`) and the admin password gate (:mod:`.auth`).

Not a page: ``pages/_<key>/`` is where a system's page helpers live (tests/test_catalog.py allows such a
package only for a built system, and nothing in it may be a page)."""
