"""The words demo data is made of: names, products, places (seeding draws from these with its seeded random)."""

from __future__ import annotations

# A data table, packed by hand: the order is part of the seeded data (same seed, same names).
FIRST_NAMES = [
    "Ada", "Alan", "Grace", "Linus", "Margaret", "Ken", "Barbara", "Dennis", "Frances", "Edsger", "Radia", "Tim",
    "Hedy", "John", "Katherine", "Donald", "Sophie", "Henrik", "Samaneh", "Kathleen", "Yuki", "Ines", "Omar",
    "Priya", "Lars", "Mei", "Diego", "Amara", "Nils", "Olga",
]  # fmt: skip
LAST_NAMES = [
    "Lovelace", "Turing", "Hopper", "Torvalds", "Hamilton", "Thompson", "Liskov", "Ritchie", "Allen", "Dijkstra",
    "Perlman", "Berners-Lee", "Lamarr", "McCarthy", "Johnson", "Knuth", "Wilson", "Andersson", "Utter", "Booth",
    "Tanaka", "Garcia", "Haddad", "Sharma", "Nilsson", "Chen", "Rossi",
]  # fmt: skip
ADJECTIVES = [
    "Classic", "Compact", "Deluxe", "Eco", "Ultra", "Smart", "Vintage", "Pro", "Mini", "Organic", "Wireless",
    "Handmade", "Travel", "Family", "Studio",
]  # fmt: skip
# The catalogue's categories and what each sells: a product is an adjective and one of its category's nouns.
CATALOGUE = {
    "Kitchen": ["Kettle", "Blender", "Pan", "Mug", "Knife Set"],
    "Electronics": ["Headphones", "Speaker", "Keyboard", "Camera", "Drone"],
    "Outdoor": ["Backpack", "Tent", "Bottle", "Sleeping Bag"],
    "Home": ["Lamp", "Chair", "Rug", "Cushion"],
    "Books": ["Book", "Notebook", "Atlas", "Cookbook"],
    "Music": ["Album", "Vinyl Record", "Guitar Strings"],
    "Clothing": ["Jacket", "Scarf", "Sweater", "Boots"],
    "Toys": ["Puzzle", "Board Game", "Kite"],
    "Beauty": ["Soap", "Shampoo", "Face Cream"],
    "Sports": ["Yoga Mat", "Football", "Tennis Racket", "Watch"],
}
CITIES = [
    ("Goteborg", "Vastra Gotaland", "Sweden", "41111"),
    ("Boras", "Vastra Gotaland", "Sweden", "50630"),
    ("Stockholm", "Stockholm", "Sweden", "11122"),
    ("Malmo", "Skane", "Sweden", "21119"),
    ("Uppsala", "Uppsala", "Sweden", "75310"),
    ("Oslo", "Oslo", "Norway", "0150"),
    ("Copenhagen", "Hovedstaden", "Denmark", "1050"),
    ("Helsinki", "Uusimaa", "Finland", "00100"),
]
STREETS = ["MainStreet", "RiverStreet", "Slanbarsvagen", "Kungsgatan", "Drottninggatan", "Storgatan"]
