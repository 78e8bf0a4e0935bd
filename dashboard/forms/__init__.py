"""The dashboard's forms, by area. GET forms validate query parameters (a bad one is a 400 with the form's
message); POST forms validate an action's fields."""
