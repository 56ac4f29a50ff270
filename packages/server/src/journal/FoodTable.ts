/**
 * The food composition table the project owns: per-100 g values of common foods and drinks, each row
 * with the id of its source. Values are typed from USDA FoodData Central's SR Legacy data set (public
 * domain), cited by NDB number (`usda-sr:NNNNN`); a few drinks mixed from two rows cite both
 * (`derived:...`). Aliases are what a caption or a model may call the food; portions are the weights of
 * household measures. Checked by tests: energy within max(20 kcal, 15 %) of 4P + 4C + 9F (+ 7 alcohol),
 * sugar and fibre within carbohydrate.
 */

export type FoodCategory =
  | "Fruit"
  | "Vegetables"
  | "Legumes, nuts and seeds"
  | "Grains and bakery"
  | "Dairy and eggs"
  | "Meat and fish"
  | "Prepared dishes"
  | "Fats, sauces and sweets"
  | "Snacks"
  | "Beverages"

export interface Per100g {
  readonly caloriesKcal: number
  readonly proteinGrams: number
  readonly carbsGrams: number
  readonly fatGrams: number
  readonly fiberGrams: number
  readonly sugarGrams: number
  readonly sodiumMg: number
  readonly caffeineMg: number
  /** Only for alcoholic drinks; part of the energy check. */
  readonly alcoholGrams: number
}

/** Grams of one household measure of this food. */
export interface Portions {
  /** What "1" of the food weighs when no unit is given (also `serving`, `portion`). */
  readonly serving: number
  readonly piece?: number
  readonly slice?: number
  readonly cup?: number
  readonly tbsp?: number
  readonly bowl?: number
}

export interface Food {
  readonly sourceId: string
  readonly name: string
  readonly category: FoodCategory
  readonly per100g: Per100g
  readonly aliases: ReadonlyArray<string>
  readonly portions: Portions
  /** A drink: its volume in ml is its weight divided by `density` (g/ml). */
  readonly liquid: boolean
  readonly density: number
}

type Values = readonly [
  kcal: number,
  protein: number,
  carbs: number,
  fat: number,
  fiber: number,
  sugar: number,
  sodium: number,
  caffeine?: number,
  alcohol?: number
]

const food = (
  sourceId: string,
  name: string,
  category: FoodCategory,
  v: Values,
  portions: Portions,
  aliases: ReadonlyArray<string> = [],
  drink?: { readonly density?: number }
): Food => ({
  sourceId: sourceId.includes(":") ? sourceId : `usda-sr:${sourceId}`,
  name,
  category,
  per100g: {
    caloriesKcal: v[0],
    proteinGrams: v[1],
    carbsGrams: v[2],
    fatGrams: v[3],
    fiberGrams: v[4],
    sugarGrams: v[5],
    sodiumMg: v[6],
    caffeineMg: v[7] ?? 0,
    alcoholGrams: v[8] ?? 0
  },
  aliases: [name, ...aliases],
  portions,
  liquid: drink !== undefined,
  density: drink?.density ?? 1
})

const F = "Fruit" as const
const V = "Vegetables" as const
const L = "Legumes, nuts and seeds" as const
const G = "Grains and bakery" as const
const D = "Dairy and eggs" as const
const M = "Meat and fish" as const
const P = "Prepared dishes" as const
const S = "Fats, sauces and sweets" as const
const K = "Snacks" as const
const B = "Beverages" as const

const drink = {}
const milky = { density: 1.03 }

export const foods: ReadonlyArray<Food> = [
  // Fruit
  food("09003", "Apple", F, [52, 0.26, 13.81, 0.17, 2.4, 10.39, 1], { serving: 182, piece: 182, slice: 20 }, [
    "apples, raw"
  ]),
  food("09040", "Banana", F, [89, 1.09, 22.84, 0.33, 2.6, 12.23, 1], { serving: 118, piece: 118 }),
  food("09200", "Orange", F, [47, 0.94, 11.75, 0.12, 2.4, 9.35, 0], { serving: 131, piece: 131 }),
  food("09316", "Strawberries", F, [32, 0.67, 7.68, 0.3, 2, 4.89, 1], { serving: 150, piece: 12, cup: 152 }, [
    "strawberry"
  ]),
  food("09050", "Blueberries", F, [57, 0.74, 14.49, 0.33, 2.4, 9.96, 1], { serving: 148, cup: 148 }),
  food("09302", "Raspberries", F, [52, 1.2, 11.94, 0.65, 6.5, 4.42, 1], { serving: 123, cup: 123 }),
  food("09132", "Grapes", F, [69, 0.72, 18.1, 0.16, 0.9, 15.48, 2], { serving: 151, piece: 5, cup: 151 }),
  food("09176", "Mango", F, [60, 0.82, 14.98, 0.38, 1.6, 13.66, 1], { serving: 200, piece: 200, cup: 165 }),
  food("09266", "Pineapple", F, [50, 0.54, 13.12, 0.12, 1.4, 9.85, 1], { serving: 165, slice: 84, cup: 165 }),
  food("09326", "Watermelon", F, [30, 0.61, 7.55, 0.15, 0.4, 6.2, 1], { serving: 280, slice: 280, cup: 152 }),
  food("09252", "Pear", F, [57, 0.36, 15.23, 0.14, 3.1, 9.75, 1], { serving: 178, piece: 178 }),
  food("09236", "Peach", F, [39, 0.91, 9.54, 0.25, 1.5, 8.39, 0], { serving: 150, piece: 150 }),
  food("09148", "Kiwi", F, [61, 1.14, 14.66, 0.52, 3, 8.99, 3], { serving: 69, piece: 69 }, ["kiwifruit"]),
  food("09037", "Avocado", F, [160, 2, 8.53, 14.66, 6.7, 0.66, 7], { serving: 150, piece: 150, slice: 15 }),
  food("09150", "Lemon", F, [29, 1.1, 9.32, 0.3, 2.8, 2.5, 2], { serving: 58, piece: 58, slice: 8 }),
  food("09070", "Cherries", F, [63, 1.06, 16.01, 0.2, 2.1, 12.82, 0], { serving: 138, piece: 8, cup: 138 }),
  food("09087", "Dates", F, [282, 2.45, 75.03, 0.39, 8, 63.35, 2], { serving: 30, piece: 7 }),
  food("09298", "Raisins", F, [299, 3.07, 79.18, 0.46, 3.7, 59.19, 11], { serving: 40, tbsp: 9, cup: 145 }),
  food("09021", "Apricot", F, [48, 1.4, 11.12, 0.39, 2, 9.24, 1], { serving: 35, piece: 35 }),
  food("09181", "Cantaloupe", F, [34, 0.84, 8.16, 0.19, 0.9, 7.86, 16], { serving: 160, slice: 70, cup: 160 }, [
    "melon"
  ]),
  food("09279", "Plum", F, [46, 0.7, 11.42, 0.28, 1.4, 9.92, 0], { serving: 66, piece: 66 }),
  food("09112", "Grapefruit", F, [42, 0.77, 10.66, 0.14, 1.6, 6.89, 0], { serving: 123, piece: 246 }),
  food("09286", "Pomegranate", F, [83, 1.67, 18.7, 1.17, 4, 13.67, 3], { serving: 87, piece: 282, cup: 174 }),
  food("09019", "Applesauce", F, [42, 0.17, 11.27, 0.1, 1.1, 9.39, 2], { serving: 122, cup: 244, tbsp: 15 }, [
    "apple sauce"
  ]),
  // Vegetables
  food("11090", "Broccoli", V, [34, 2.82, 6.64, 0.37, 2.6, 1.7, 33], { serving: 91, cup: 91 }),
  food("11124", "Carrot", V, [41, 0.93, 9.58, 0.24, 2.8, 4.74, 69], { serving: 61, piece: 61, cup: 128 }),
  food("11529", "Tomato", V, [18, 0.88, 3.89, 0.2, 1.2, 2.63, 5], { serving: 123, piece: 123, slice: 20, cup: 180 }),
  food("11205", "Cucumber", V, [15, 0.65, 3.63, 0.11, 0.5, 1.67, 2], { serving: 100, piece: 300, slice: 7, cup: 104 }),
  food("11457", "Spinach", V, [23, 2.86, 3.63, 0.39, 2.2, 0.42, 79], { serving: 30, cup: 30 }),
  food("11251", "Romaine lettuce", V, [17, 1.23, 3.29, 0.3, 2.1, 1.19, 8], { serving: 85, cup: 47, bowl: 85 }, [
    "lettuce",
    "green salad",
    "salad"
  ]),
  food("11252", "Iceberg lettuce", V, [14, 0.9, 2.97, 0.14, 1.2, 1.97, 10], { serving: 72, cup: 72 }),
  food("11282", "Onion", V, [40, 1.1, 9.34, 0.1, 1.7, 4.24, 4], { serving: 110, piece: 110, slice: 14, cup: 160 }),
  food("11215", "Garlic", V, [149, 6.36, 33.06, 0.5, 2.1, 1, 17], { serving: 3, piece: 3 }, ["garlic clove"]),
  food("11333", "Green bell pepper", V, [20, 0.86, 4.64, 0.17, 1.7, 2.4, 3], { serving: 119, piece: 119, cup: 149 }, [
    "green pepper"
  ]),
  food("11821", "Red bell pepper", V, [31, 0.99, 6.03, 0.3, 2.1, 4.2, 4], { serving: 119, piece: 119, cup: 149 }, [
    "bell pepper",
    "red pepper",
    "pepper"
  ]),
  food("11352", "Potato, raw", V, [77, 2.05, 17.49, 0.09, 2.1, 0.82, 6], { serving: 213, piece: 213 }),
  food("11674", "Baked potato", V, [93, 2.5, 21.15, 0.13, 2.2, 1.18, 10], { serving: 173, piece: 173 }, [
    "potato",
    "jacket potato"
  ]),
  food("11367", "Boiled potatoes", V, [86, 1.71, 20.01, 0.1, 1.8, 0.85, 5], { serving: 150, piece: 136, cup: 156 }, [
    "boiled potato"
  ]),
  food("11508", "Sweet potato", V, [90, 2.01, 20.71, 0.15, 3.3, 6.48, 36], { serving: 114, piece: 114 }),
  food("11167", "Sweet corn", V, [86, 3.27, 18.7, 1.35, 2, 6.26, 15], { serving: 90, piece: 90, cup: 145 }, [
    "corn",
    "corn on the cob"
  ]),
  food("11304", "Green peas", V, [81, 5.42, 14.45, 0.4, 5.7, 5.67, 5], { serving: 80, cup: 145 }, ["peas"]),
  food("11052", "Green beans", V, [31, 1.83, 6.97, 0.22, 2.7, 3.26, 6], { serving: 100, cup: 100 }),
  food("11135", "Cauliflower", V, [25, 1.92, 4.97, 0.28, 2, 1.91, 30], { serving: 107, cup: 107 }),
  food("11260", "Mushrooms", V, [22, 3.09, 3.26, 0.34, 1, 1.98, 5], { serving: 70, piece: 18, cup: 70 }, [
    "mushroom"
  ]),
  food("11477", "Zucchini", V, [17, 1.21, 3.11, 0.32, 1, 2.5, 8], { serving: 196, piece: 196, cup: 124 }, [
    "courgette"
  ]),
  food("11209", "Eggplant", V, [25, 0.98, 5.88, 0.18, 3, 3.53, 2], { serving: 82, piece: 458, cup: 82 }, [
    "aubergine"
  ]),
  food("11109", "Cabbage", V, [25, 1.28, 5.8, 0.1, 2.5, 3.2, 18], { serving: 89, cup: 89 }, ["coleslaw"]),
  food("11233", "Kale", V, [49, 4.28, 8.75, 0.93, 3.6, 2.26, 38], { serving: 67, cup: 67 }),
  food("11143", "Celery", V, [16, 0.69, 2.97, 0.17, 1.6, 1.34, 80], { serving: 40, piece: 40, cup: 101 }),
  food("11011", "Asparagus", V, [20, 2.2, 3.88, 0.12, 2.1, 1.88, 2], { serving: 90, piece: 16, cup: 134 }),
  food("11098", "Brussels sprouts", V, [43, 3.38, 8.95, 0.3, 3.8, 2.2, 25], { serving: 88, piece: 19, cup: 88 }),
  food("11080", "Beetroot", V, [43, 1.61, 9.56, 0.17, 2.8, 6.76, 78], { serving: 82, piece: 82, cup: 136 }, [
    "beets",
    "beet"
  ]),
  food("11959", "Arugula", V, [25, 2.58, 3.65, 0.66, 1.6, 2.05, 27], { serving: 20, cup: 20 }, ["rocket"]),
  // Legumes, nuts and seeds
  food("16015", "Black beans", L, [132, 8.86, 23.71, 0.54, 8.7, 0.32, 1], { serving: 172, cup: 172 }),
  food("16057", "Chickpeas", L, [164, 8.86, 27.42, 2.59, 7.6, 4.8, 7], { serving: 164, cup: 164 }, [
    "garbanzo beans"
  ]),
  food("16070", "Lentils", L, [116, 9.02, 20.13, 0.38, 7.9, 1.8, 2], { serving: 198, cup: 198 }, ["dal"]),
  food("16033", "Kidney beans", L, [127, 8.67, 22.8, 0.5, 6.4, 0.32, 1], { serving: 177, cup: 177 }, ["beans"]),
  food("16098", "Peanut butter", L, [588, 25.09, 19.56, 50.39, 6, 9.22, 459], { serving: 32, tbsp: 16 }),
  food("16087", "Peanuts", L, [567, 25.8, 16.13, 49.24, 8.5, 4.72, 18], { serving: 28, piece: 1, cup: 146 }),
  food("12061", "Almonds", L, [579, 21.15, 21.55, 49.93, 12.5, 4.35, 1], { serving: 28, piece: 1.2, cup: 143 }),
  food("12155", "Walnuts", L, [654, 15.23, 13.71, 65.21, 6.7, 2.61, 2], { serving: 28, piece: 4, cup: 117 }),
  food("12087", "Cashews", L, [553, 18.22, 30.19, 43.85, 3.3, 5.91, 12], { serving: 28, piece: 1.5, cup: 137 }),
  food("16126", "Tofu", L, [76, 8.08, 1.87, 4.78, 0.3, 0.62, 7], { serving: 126, cup: 248, slice: 84 }),
  food("16108", "Soybeans", L, [172, 18.21, 8.36, 8.97, 6, 3, 1], { serving: 172, cup: 172 }, ["edamame"]),
  food("16158", "Hummus", L, [166, 7.9, 14.29, 9.6, 6, 0.27, 379], { serving: 30, tbsp: 15, cup: 246 }),
  food("12036", "Sunflower seeds", L, [584, 20.78, 20, 51.46, 8.6, 2.62, 9], { serving: 28, tbsp: 9 }),
  food("12006", "Chia seeds", L, [486, 16.54, 42.12, 30.74, 34.4, 0, 16], { serving: 12, tbsp: 12 }),
  // Grains and bakery
  food("18069", "White bread", G, [266, 7.64, 50.61, 3.29, 2.4, 5.73, 490], { serving: 25, slice: 25, piece: 25 }, [
    "bread",
    "slice of bread"
  ]),
  food("18070", "Toast", G, [293, 9, 54.4, 4, 2.5, 5, 530], { serving: 22, slice: 22, piece: 22 }, [
    "toasted bread",
    "white toast"
  ]),
  food("18075", "Whole-wheat bread", G, [252, 12.45, 42.71, 3.5, 6, 4.41, 450], { serving: 32, slice: 32 }, [
    "wholemeal bread",
    "whole wheat bread",
    "brown bread",
    "wholegrain bread"
  ]),
  food("18060", "Rye bread", G, [259, 8.5, 48.3, 3.3, 5.8, 3.85, 603], { serving: 32, slice: 32 }),
  food("18001", "Bagel", G, [264, 10.56, 52.38, 1.32, 1.6, 8.43, 439], { serving: 105, piece: 105 }),
  food("18239", "Croissant", G, [406, 8.2, 45.8, 21, 2.6, 11.26, 467], { serving: 57, piece: 57 }),
  food("18350", "Bread roll", G, [279, 9.5, 49.4, 4.3, 2, 5.6, 486], { serving: 44, piece: 44 }, [
    "roll",
    "bun",
    "hamburger bun"
  ]),
  food("20045", "White rice", G, [130, 2.69, 28.17, 0.28, 0.4, 0.05, 1], { serving: 158, cup: 158, bowl: 200 }, [
    "rice",
    "rice, white, cooked",
    "steamed rice"
  ]),
  food("20037", "Brown rice", G, [111, 2.58, 22.96, 0.9, 1.8, 0.35, 5], { serving: 195, cup: 195, bowl: 200 }),
  food("20121", "Pasta", G, [158, 5.8, 30.86, 0.93, 1.8, 0.56, 1], { serving: 140, cup: 140, bowl: 250 }, [
    "spaghetti",
    "penne",
    "noodles",
    "macaroni",
    "fusilli"
  ]),
  food("20125", "Whole-wheat pasta", G, [124, 5.33, 26.54, 0.54, 4.5, 0.8, 3], { serving: 140, cup: 140, bowl: 250 }, [
    "wholemeal pasta",
    "whole wheat spaghetti"
  ]),
  food("08121", "Oatmeal", G, [71, 2.54, 12, 1.52, 1.7, 0.27, 4], { serving: 234, cup: 234, bowl: 234 }, [
    "porridge",
    "oatmeal, cooked"
  ]),
  food("08120", "Rolled oats", G, [379, 13.15, 67.7, 6.52, 10.1, 0.99, 6], { serving: 40, cup: 81, tbsp: 5 }, [
    "oats"
  ]),
  food("08020", "Corn flakes", G, [357, 7.5, 84, 0.4, 3.3, 9.6, 729], { serving: 28, cup: 28, bowl: 40 }, [
    "cereal",
    "breakfast cereal"
  ]),
  food("08037", "Granola", G, [489, 13.67, 53.88, 24.31, 8.9, 19.8, 26], { serving: 60, cup: 122 }, ["muesli"]),
  food("20081", "Wheat flour", G, [364, 10.33, 76.31, 0.98, 2.7, 0.27, 2], { serving: 30, cup: 125, tbsp: 8 }, [
    "flour"
  ]),
  food("20029", "Couscous", G, [112, 3.79, 23.22, 0.16, 1.4, 0.1, 5], { serving: 157, cup: 157 }),
  food("20035", "Quinoa", G, [120, 4.4, 21.3, 1.92, 2.8, 0.87, 7], { serving: 185, cup: 185 }),
  food("18364", "Flour tortilla", G, [306, 8.2, 50, 8, 3.5, 3.7, 600], { serving: 45, piece: 45 }, [
    "tortilla",
    "wrap"
  ]),
  food("18363", "Corn tortilla", G, [218, 5.7, 44.64, 2.85, 6.3, 0.88, 45], { serving: 26, piece: 26 }),
  food("18292", "Pancakes", G, [227, 6.4, 28.3, 9.7, 0.9, 5, 439], { serving: 77, piece: 77 }, ["pancake"]),
  food("18274", "Blueberry muffin", G, [377, 4.38, 54.4, 16.4, 1.4, 27, 306], { serving: 113, piece: 113 }, [
    "muffin"
  ]),
  food("18086", "Doughnut", G, [421, 5, 49.7, 22.9, 1.5, 22.4, 548], { serving: 60, piece: 60 }, ["donut"]),
  food("18159", "Chocolate chip cookie", G, [488, 5.4, 64.2, 24, 2.4, 32, 375], { serving: 16, piece: 16 }, [
    "cookie",
    "biscuit"
  ]),
  food("18096", "Chocolate cake", G, [367, 4.1, 54.6, 16.4, 1.8, 36.7, 334], { serving: 64, slice: 64, piece: 64 }, [
    "cake"
  ]),
  food("18301", "Apple pie", G, [237, 1.9, 34, 11, 1.6, 15.7, 201], { serving: 125, slice: 125, piece: 125 }, [
    "pie"
  ]),
  food("18147", "Cheesecake", G, [321, 5.5, 25.5, 22.5, 0.4, 21.8, 438], { serving: 80, slice: 80, piece: 80 }),
  food("18024", "Brownie", G, [466, 6.2, 50.2, 29.1, 2.6, 36.6, 175], { serving: 56, piece: 56 }),
  // Dairy and eggs
  food("01077", "Whole milk", D, [61, 3.15, 4.8, 3.25, 0, 5.05, 43], { serving: 244, cup: 244, tbsp: 15 }, [
    "milk",
    "full-fat milk"
  ], milky),
  food("01079", "Reduced-fat milk", D, [50, 3.3, 4.8, 1.98, 0, 5.06, 47], { serving: 244, cup: 244 }, [
    "2% milk",
    "semi-skimmed milk"
  ], milky),
  food("01082", "Low-fat milk", D, [42, 3.37, 4.99, 0.97, 0, 5.2, 44], { serving: 244, cup: 244 }, [
    "1% milk"
  ], milky),
  food("01085", "Skim milk", D, [34, 3.37, 4.96, 0.08, 0, 5.09, 42], { serving: 245, cup: 245 }, [
    "skimmed milk",
    "nonfat milk"
  ], milky),
  food("01001", "Butter", D, [717, 0.85, 0.06, 81.11, 0, 0.06, 643], { serving: 10, tbsp: 14, slice: 5, piece: 5 }),
  food("01009", "Cheddar cheese", D, [403, 24.9, 1.28, 33.14, 0, 0.52, 621], { serving: 28, slice: 28, cup: 113 }, [
    "cheddar",
    "cheese"
  ]),
  food("01026", "Mozzarella", D, [300, 22.17, 2.19, 22.35, 0, 1.03, 627], { serving: 28, slice: 28, cup: 112 }),
  food("01040", "Swiss cheese", D, [380, 26.93, 5.38, 27.8, 0, 1.32, 192], { serving: 28, slice: 28 }, ["emmental"]),
  food("01032", "Parmesan", D, [431, 38.46, 4.06, 28.61, 0, 0.9, 1529], { serving: 10, tbsp: 5 }, [
    "parmesan cheese"
  ]),
  food("01016", "Cottage cheese", D, [98, 11.12, 3.38, 4.3, 0, 2.67, 364], { serving: 113, cup: 226 }),
  food("01017", "Cream cheese", D, [342, 5.93, 4.07, 34.24, 0, 3.21, 321], { serving: 29, tbsp: 14.5 }),
  food("01019", "Feta", D, [264, 14.21, 4.09, 21.28, 0, 4.09, 917], { serving: 28, cup: 150 }, ["feta cheese"]),
  food("01116", "Plain yogurt", D, [61, 3.47, 4.66, 3.25, 0, 4.66, 46], { serving: 170, cup: 245, tbsp: 15 }, [
    "yogurt",
    "yoghurt"
  ]),
  food("01117", "Low-fat yogurt", D, [63, 5.25, 7.04, 1.55, 0, 7.04, 70], { serving: 170, cup: 245 }),
  food("01256", "Nonfat Greek yogurt", D, [59, 10.19, 3.6, 0.39, 0, 3.24, 36], { serving: 170, cup: 245 }),
  food("01293", "Greek yogurt", D, [97, 9, 3.98, 5, 0, 4, 35], { serving: 170, cup: 245, tbsp: 15 }, [
    "greek yoghurt"
  ]),
  food("01053", "Heavy cream", D, [340, 2.84, 2.84, 36.08, 0, 2.92, 27], { serving: 15, tbsp: 15, cup: 238 }, [
    "cream",
    "whipping cream"
  ], milky),
  food("01049", "Half and half", D, [131, 3.13, 4.3, 11.5, 0, 4.13, 61], { serving: 15, tbsp: 15, cup: 242 }, [
    "coffee cream"
  ], milky),
  food("01056", "Sour cream", D, [198, 2.44, 4.63, 19.35, 0, 3.41, 31], { serving: 30, tbsp: 12, cup: 230 }),
  food("19095", "Vanilla ice cream", D, [207, 3.5, 23.6, 11, 0.7, 21.22, 80], { serving: 66, cup: 132, piece: 66 }, [
    "ice cream",
    "scoop of ice cream"
  ]),
  food("01129", "Boiled egg", D, [155, 12.58, 1.12, 10.61, 0, 1.12, 124], { serving: 50, piece: 50 }, [
    "egg",
    "hard-boiled egg",
    "eggs"
  ]),
  food("01123", "Raw egg", D, [143, 12.56, 0.72, 9.51, 0, 0.37, 142], { serving: 50, piece: 50 }),
  food("01128", "Fried egg", D, [196, 13.61, 0.83, 14.84, 0, 0.4, 207], { serving: 46, piece: 46 }),
  food("01132", "Scrambled eggs", D, [149, 9.99, 1.61, 10.98, 0, 1.39, 145], { serving: 61, piece: 61, cup: 220 }, [
    "scrambled egg",
    "omelette",
    "omelet"
  ]),
  // Meat and fish
  food("05064", "Chicken breast", M, [165, 31.02, 0, 3.57, 0, 0, 74], { serving: 120, piece: 172, cup: 140 }, [
    "chicken",
    "grilled chicken",
    "roast chicken"
  ]),
  food("05062", "Raw chicken breast", M, [120, 22.5, 0, 2.62, 0, 0, 45], { serving: 120, piece: 174 }),
  food("05096", "Chicken thigh", M, [209, 25.95, 0, 10.9, 0, 0, 95], { serving: 100, piece: 52 }),
  food("21229", "Chicken nuggets", P, [296, 15.4, 15.6, 19.2, 1, 0.5, 470], { serving: 96, piece: 16 }, [
    "nuggets"
  ]),
  food("23572", "Ground beef", M, [250, 25.93, 0, 15.41, 0, 0, 76], { serving: 100, cup: 140 }, [
    "minced beef",
    "beef mince",
    "beef patty"
  ]),
  food("13455", "Beef steak", M, [188, 30.29, 0, 6.55, 0, 0, 58], { serving: 150, piece: 200, slice: 30 }, [
    "steak",
    "sirloin",
    "beef"
  ]),
  food("10061", "Pork tenderloin", M, [143, 26.17, 0, 3.51, 0, 0, 57], { serving: 100, slice: 30 }, [
    "pork",
    "pork loin"
  ]),
  food("10862", "Bacon", M, [541, 37.04, 1.43, 41.78, 0, 0, 1717], { serving: 16, slice: 8, piece: 8 }),
  food("07028", "Ham", M, [163, 16.6, 3.83, 8.6, 1.3, 0, 1203], { serving: 56, slice: 28 }),
  food("07022", "Hot dog sausage", M, [322, 11.7, 2.66, 29.4, 0, 1.2, 1090], { serving: 45, piece: 45 }, [
    "frankfurter",
    "wiener",
    "hot dog"
  ]),
  food("07065", "Pork sausage", M, [325, 18.53, 1.42, 27.25, 0, 0, 814], { serving: 50, piece: 25 }, [
    "sausage",
    "sausages"
  ]),
  food("05186", "Turkey breast", M, [147, 30.13, 0, 2.08, 0, 0, 99], { serving: 100, slice: 28 }, ["turkey"]),
  food("15237", "Salmon", M, [206, 22.1, 0, 12.35, 0, 0, 61], { serving: 150, piece: 150 }, [
    "salmon fillet",
    "grilled salmon"
  ]),
  food("15121", "Canned tuna", M, [116, 25.51, 0, 0.82, 0, 0, 338], { serving: 85, cup: 154 }, ["tuna"]),
  food("15016", "Cod", M, [105, 22.83, 0, 0.86, 0, 0, 78], { serving: 150, piece: 180 }, ["white fish", "fish"]),
  food("15150", "Shrimp", M, [99, 20.91, 0.2, 1.08, 0, 0, 224], { serving: 85, piece: 6, cup: 145 }, ["prawns"]),
  food("15088", "Sardines", M, [208, 24.62, 0, 11.45, 0, 0, 307], { serving: 92, piece: 12 }),
  food("15262", "Tilapia", M, [128, 26.15, 0, 2.65, 0, 0, 56], { serving: 87, piece: 87 }),
  // Prepared dishes
  food("21138", "French fries", P, [312, 3.43, 41.44, 14.73, 3.8, 0.3, 210], { serving: 117, cup: 60 }, [
    "fries",
    "chips",
    "potato fries"
  ]),
  food("21299", "Cheese pizza", P, [266, 11.4, 33.3, 10.4, 2.3, 3.6, 598], { serving: 107, slice: 107, piece: 107 }, [
    "pizza",
    "margherita",
    "pizza slice"
  ]),
  food("21107", "Hamburger", P, [250, 12.3, 27.9, 9.8, 1.2, 5, 460], { serving: 110, piece: 110 }, [
    "burger",
    "cheeseburger"
  ]),
  food("06243", "Chicken noodle soup", P, [26, 1.5, 3.4, 0.9, 0.2, 0.3, 343], { serving: 240, cup: 240, bowl: 360 }, [
    "soup"
  ], drink),
  food("06359", "Tomato soup", P, [30, 0.8, 6.8, 0.2, 0.6, 4, 290], { serving: 244, cup: 244, bowl: 360 }, [], drink),
  // Fats, sauces and sweets
  food("04053", "Olive oil", S, [884, 0, 0, 100, 0, 0, 2], { serving: 13.5, tbsp: 13.5 }, ["oil"], { density: 0.92 }),
  food("04582", "Canola oil", S, [884, 0, 0, 100, 0, 0, 0], { serving: 14, tbsp: 14 }, ["vegetable oil"], {
    density: 0.92
  }),
  food("04025", "Mayonnaise", S, [680, 0.96, 0.57, 74.85, 0, 0.57, 635], { serving: 14, tbsp: 14 }, ["mayo"]),
  food("11935", "Ketchup", S, [101, 1.04, 27.4, 0.1, 0.3, 21.27, 907], { serving: 17, tbsp: 17 }),
  food("02046", "Mustard", S, [60, 3.74, 5.83, 3.34, 4, 0.92, 1104], { serving: 5, tbsp: 15 }),
  food("19296", "Honey", S, [304, 0.3, 82.4, 0, 0.2, 82.12, 4], { serving: 21, tbsp: 21 }),
  food("19335", "Sugar", S, [387, 0, 99.98, 0, 0, 99.8, 1], { serving: 4, tbsp: 12.5, piece: 4 }, [
    "granulated sugar"
  ]),
  food("19297", "Jam", S, [278, 0.37, 68.86, 0.07, 1.1, 48.5, 32], { serving: 20, tbsp: 20 }, ["jelly", "preserves"]),
  food("19904", "Dark chocolate", S, [598, 7.79, 45.9, 42.63, 10.9, 23.99, 20, 80], { serving: 28, piece: 10 }),
  food("19120", "Milk chocolate", S, [535, 7.65, 59.4, 29.66, 3.4, 51.5, 79, 20], { serving: 44, piece: 10 }, [
    "chocolate",
    "chocolate bar"
  ]),
  food("19719", "Maple syrup", S, [260, 0.04, 67.04, 0.06, 0, 60.46, 12], { serving: 20, tbsp: 20 }, ["syrup"]),
  food("04120", "Vinaigrette", S, [449, 0.08, 2.47, 48.5, 0, 2.2, 487], { serving: 16, tbsp: 16 }, [
    "salad dressing",
    "dressing"
  ]),
  // Snacks
  food("19411", "Potato chips", K, [536, 7, 52.9, 34.6, 4.8, 0.3, 525], { serving: 28, cup: 20 }, ["crisps"]),
  food("19034", "Popcorn", K, [387, 12.94, 77.78, 4.54, 14.5, 0.87, 8], { serving: 24, cup: 8 }),
  food("19047", "Pretzels", K, [380, 10.34, 79.76, 2.63, 2.8, 2.76, 1357], { serving: 28, piece: 6 }),
  food("19015", "Granola bar", K, [471, 10.1, 64.4, 19.8, 5.3, 29.3, 294], { serving: 28, piece: 28 }, [
    "cereal bar",
    "muesli bar"
  ]),
  food("18228", "Crackers", K, [502, 7.3, 61.3, 25.3, 2.3, 8, 848], { serving: 16, piece: 3 }, ["cracker"]),
  food("18173", "Rice cakes", K, [387, 8.2, 81.5, 2.8, 4.2, 0.9, 29], { serving: 9, piece: 9 }, ["rice cake"]),
  // Beverages
  food("14555", "Water", B, [0, 0, 0, 0, 0, 0, 2], { serving: 250, cup: 237 }, [
    "still water",
    "tap water",
    "mineral water"
  ], drink),
  food("14121", "Sparkling water", B, [0, 0, 0, 0, 0, 0, 21], { serving: 250, cup: 237 }, [
    "soda water",
    "club soda",
    "fizzy water"
  ], drink),
  food("14209", "Coffee", B, [1, 0.12, 0, 0.02, 0, 0, 2, 40], { serving: 237, cup: 237 }, [
    "black coffee",
    "brewed coffee",
    "filter coffee",
    "americano"
  ], drink),
  food("14210", "Espresso", B, [9, 0.12, 1.67, 0.18, 0, 0, 14, 212], { serving: 30, piece: 30, cup: 60 }, [
    "shot of espresso",
    "ristretto"
  ], drink),
  food("14215", "Instant coffee", B, [2, 0.1, 0.34, 0, 0, 0, 4, 26], { serving: 240, cup: 240 }, [], drink),
  food("derived:14210+01077:1:6", "Latte", B, [54, 2.8, 4.4, 2.8, 0, 4.3, 38, 30], { serving: 350, cup: 240 }, [
    "caffe latte",
    "latte macchiato",
    "flat white",
    "coffee with milk",
    "white coffee"
  ], milky),
  food(
    "derived:14210+01077:1:3",
    "Cappuccino",
    B,
    [48, 2.39, 4.02, 2.48, 0, 3.79, 36, 53],
    {
      serving: 240,
      cup: 240
    },
    ["cappucino"],
    milky
  ),
  food("14355", "Black tea", B, [1, 0, 0.3, 0, 0, 0, 3, 20], { serving: 237, cup: 237 }, ["tea", "english tea"], drink),
  food("14278", "Green tea", B, [1, 0.22, 0, 0, 0, 0, 1, 12], { serving: 237, cup: 237 }, ["matcha"], drink),
  food("14381", "Herbal tea", B, [1, 0, 0.2, 0, 0, 0, 1], { serving: 237, cup: 237 }, [
    "chamomile tea",
    "peppermint tea",
    "infusion"
  ], drink),
  food("14400", "Cola", B, [42, 0, 10.58, 0, 0, 8.97, 4, 10], { serving: 368, cup: 246 }, [
    "coke",
    "soda",
    "soft drink"
  ], { density: 1.04 }),
  food("14416", "Diet cola", B, [2, 0.11, 0.29, 0.03, 0, 0, 12, 12], { serving: 355, cup: 237 }, [
    "diet coke",
    "coke zero"
  ], drink),
  food("09206", "Orange juice", B, [45, 0.7, 10.4, 0.2, 0.2, 8.4, 1], { serving: 248, cup: 248 }, ["oj"], {
    density: 1.04
  }),
  food("09016", "Apple juice", B, [46, 0.1, 11.3, 0.13, 0.2, 9.62, 4], { serving: 248, cup: 248 }, [], {
    density: 1.04
  }),
  food("14292", "Lemonade", B, [40, 0.07, 10.42, 0.04, 0.1, 9.81, 4], { serving: 248, cup: 248 }, [], drink),
  food("14003", "Beer", B, [43, 0.46, 3.55, 0, 0, 0, 4, 0, 3.9], { serving: 356, cup: 237 }, [
    "lager",
    "pint of beer",
    "ale"
  ], drink),
  food("14096", "Red wine", B, [85, 0.07, 2.61, 0, 0, 0.62, 4, 0, 10.6], { serving: 147, cup: 237 }, [
    "wine",
    "glass of wine"
  ], { density: 0.99 }),
  food("14106", "White wine", B, [82, 0.07, 2.6, 0, 0, 0.96, 5, 0, 10.3], { serving: 147, cup: 237 }, [], {
    density: 0.99
  }),
  food("14460", "Sports drink", B, [26, 0, 6.4, 0.2, 0, 5.3, 39], { serving: 591, cup: 240 }, [
    "isotonic drink",
    "gatorade"
  ], drink),
  food("14644", "Energy drink", B, [45, 0.25, 11.3, 0, 0, 10.5, 40, 32], { serving: 250, cup: 240 }, [
    "red bull"
  ], drink),
  food("01105", "Hot chocolate", B, [77, 3.52, 10.74, 2.34, 1, 9.66, 44, 2], { serving: 250, cup: 250 }, [
    "hot cocoa",
    "cocoa",
    "chocolate milk"
  ], milky),
  food("12119", "Coconut water", B, [19, 0.72, 3.71, 0.2, 1.1, 2.61, 105], { serving: 240, cup: 240 }, [], drink),
  food("16120", "Soy milk", B, [54, 3.27, 6.28, 1.75, 0.6, 3.99, 51], { serving: 243, cup: 243 }, [
    "soya milk",
    "soymilk"
  ], milky),
  food("14091", "Almond milk", B, [15, 0.59, 0.58, 1.1, 0.2, 0, 72], { serving: 240, cup: 240 }, [], drink)
]
