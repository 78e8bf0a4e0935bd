"""The dashboard's forms, by area: ``lists`` (the list parameters every list page takes, and how errors read),
``ranges`` (ranges of days), ``filters`` (each list's own filter), ``lookups`` (the jump box, the transaction lookup,
the consistency page's format), ``orders`` (ship, cancel, deliver), ``bulk`` (a status list's bulk actions),
``editing`` (the edit forms) and ``returns`` (the returns actions). GET forms validate query parameters (a bad one
is a 400 with the form's message); POST forms validate an action's fields."""
