"""A note's one field, checked by the notes' own rule (``shop.notes.note_text``): a page and any other caller
refuse the same text with the same words."""

from __future__ import annotations

from django import forms

from shop import notes
from shop.errors import InvalidInput


class NoteForm(forms.Form):
    label_suffix = ""
    required_css_class = "required"

    text = forms.CharField(label="Note", widget=forms.Textarea(attrs={"rows": 3}), max_length=notes.MAX_TEXT)

    def clean_text(self) -> str:
        try:
            return notes.note_text(self.cleaned_data["text"])
        except InvalidInput as exc:
            raise forms.ValidationError(str(exc)) from exc
