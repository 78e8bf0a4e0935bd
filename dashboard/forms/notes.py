"""A note's one field, checked by the notes' own rule (``shop.notes.note_text``): a page and any other caller
refuse the same text with the same words."""

from __future__ import annotations

from django import forms

from dashboard.forms.lists import CheckedField, MarkedForm
from shop import notes
from shop.notes import MAX_TEXT


class NoteForm(MarkedForm):
    text = CheckedField(notes.note_text, label="Note", widget=forms.Textarea(attrs={"rows": 3}), max_length=MAX_TEXT)
