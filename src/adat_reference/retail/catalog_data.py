"""Fixed vocabularies the database generator draws from: products, names, streets and cities.

These are adat's own lists; product types and option values are ordinary retail facts.
"""

from __future__ import annotations

# name -> (typical price in USD, option name -> values)
PRODUCTS: dict[str, tuple[float, dict[str, list[str]]]] = {
    "T-Shirt": (45.0, {"color": ["black", "white", "navy", "green"], "size": ["S", "M", "L", "XL"]}),
    "Running Shoes": (120.0, {"size": ["7", "8", "9", "10", "11"], "color": ["black", "grey", "red"]}),
    "Water Bottle": (30.0, {"capacity": ["500ml", "750ml", "1000ml"], "material": ["steel", "glass", "plastic"]}),
    "Backpack": (85.0, {"color": ["black", "olive", "blue"], "size": ["small", "medium", "large"]}),
    "Desk Lamp": (60.0, {"color": ["black", "white", "silver"], "brightness": ["low", "medium", "high"],
                         "power source": ["AC adapter", "USB", "battery"]}),
    "Wireless Earbuds": (150.0, {"color": ["black", "white", "blue"], "battery life": ["6 hours", "8 hours"],
                                 "water resistance": ["IPX4", "IPX7"]}),
    "Coffee Maker": (180.0, {"color": ["black", "stainless steel"], "capacity": ["4 cups", "8 cups", "12 cups"],
                             "type": ["drip", "espresso", "pour-over"]}),
    "Mechanical Keyboard": (140.0, {"switch type": ["linear", "tactile", "clicky"],
                                    "backlight": ["none", "white", "RGB"], "size": ["full size", "80%", "60%"]}),
    "Office Chair": (320.0, {"material": ["mesh", "fabric", "leather"], "color": ["black", "grey", "blue"],
                             "armrest": ["fixed", "adjustable"]}),
    "Smart Watch": (280.0, {"color": ["black", "silver", "gold"], "band material": ["silicone", "leather", "metal"],
                            "display": ["LCD", "AMOLED"]}),
    "Yoga Mat": (40.0, {"thickness": ["4mm", "6mm", "8mm"], "material": ["PVC", "TPE", "natural rubber"],
                        "color": ["purple", "green", "black"]}),
    "Tea Kettle": (90.0, {"material": ["steel", "glass", "ceramic"], "capacity": ["1 liter", "1.5 liters", "2 liters"],
                          "stovetop compatibility": ["gas", "electric", "induction"]}),
    "Laptop": (1800.0, {"screen size": ["13-inch", "15-inch"], "processor": ["i5", "i7", "i9"],
                        "ram": ["8GB", "16GB", "32GB"], "color": ["silver", "black"]}),
    "Bluetooth Speaker": (110.0, {"color": ["black", "red", "blue"], "battery life": ["10 hours", "20 hours"],
                                  "water resistance": ["yes", "no"]}),
    "Vacuum Cleaner": (400.0, {"type": ["upright", "canister", "robotic"], "bag": ["bagged", "bagless"],
                               "power source": ["cord", "battery"]}),
    "Hiking Boots": (190.0, {"size": ["8", "9", "10", "11"], "material": ["leather", "synthetic"],
                             "waterproof": ["yes", "no"]}),
    "Air Purifier": (260.0, {"room size": ["small", "medium", "large"], "filter type": ["HEPA", "carbon", "ionic"],
                             "features": ["quiet operation", "night mode", "smart sensors"]}),
    "Digital Camera": (900.0, {"resolution": ["20MP", "24MP", "30MP"], "zoom": ["3x", "5x", "10x"],
                               "storage": ["SD card", "CF card"]}),
    "Garden Hose": (55.0, {"length": ["25ft", "50ft", "100ft"], "material": ["rubber", "vinyl", "latex"],
                           "color": ["green", "blue", "black"]}),
    "Headphones": (200.0, {"type": ["on-ear", "over-ear", "in-ear"], "connectivity": ["wired", "wireless"],
                           "color": ["black", "white", "red"]}),
}

FIRST_NAMES = [
    "Ava", "Liam", "Maya", "Noah", "Zoe", "Ethan", "Lena", "Omar", "Priya", "Lucas", "Sofia", "Mateo",
    "Hana", "Diego", "Nora", "Ravi", "Elena", "Kofi", "Mia", "Arjun", "Chloe", "Yuki", "Isabel", "Samuel",
    "Amara", "Felix", "Leila", "Tomas", "Grace", "Hugo",
]
LAST_NAMES = [
    "Walker", "Nguyen", "Patel", "Garcia", "Kim", "Okafor", "Rossi", "Schmidt", "Lopez", "Haddad", "Chen",
    "Moreau", "Silva", "Novak", "Jensen", "Ito", "Mensah", "Kowalski", "Reyes", "Fischer", "Ahmed", "Larsen",
    "Costa", "Dubois", "Sato", "Brennan", "Alvarez", "Petrov", "Lindqvist", "Osei",
]
STREETS = [
    "Maple Avenue", "Oak Street", "Cedar Lane", "Hillside Drive", "Lakeview Road", "Pine Court", "River Road",
    "Elm Street", "Sunset Boulevard", "Willow Way", "Park Avenue", "Highland Drive", "Chestnut Street",
    "Meadow Lane", "Broadway",
]
# (city, state, first three digits of the zip code)
CITIES = [
    ("Austin", "TX", "787"), ("Denver", "CO", "802"), ("Seattle", "WA", "981"), ("Boston", "MA", "021"),
    ("Chicago", "IL", "606"), ("Phoenix", "AZ", "850"), ("Portland", "OR", "972"), ("Atlanta", "GA", "303"),
    ("San Diego", "CA", "921"), ("Columbus", "OH", "432"), ("Nashville", "TN", "372"), ("Philadelphia", "PA", "191"),
]
CARD_BRANDS = ["visa", "mastercard", "amex"]
