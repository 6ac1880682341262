import KithTemplates
import Testing

@Suite("Tally numerals")
struct TallyNumeralTests {
    @Test("Roman numerals: N for zero, the usual letters to 3,999, an overline for thousands above")
    func roman() {
        let cases: [(Int64, String)] = [
            (0, "N"), (1, "I"), (4, "IV"), (9, "IX"), (14, "XIV"), (40, "XL"), (90, "XC"), (400, "CD"), (1994, "MCMXCIV"),
            (2026, "MMXXVI"), (3999, "MMMCMXCIX"),
            (4000, "I\u{0305}V\u{0305}"), (4500, "I\u{0305}V\u{0305}D"), (5001, "V\u{0305}I"),
            (12_345, "X\u{0305}I\u{0305}I\u{0305}CCCXLV"),
            (1_000_000, "M\u{0305}"), (3_999_999, "M\u{0305}M\u{0305}M\u{0305}C\u{0305}M\u{0305}X\u{0305}C\u{0305}I\u{0305}X\u{0305}CMXCIX"),
            (5_000_000, "V\u{033F}"), (999_999_999, "C\u{033F}M\u{033F}X\u{033F}C\u{033F}I\u{033F}X\u{033F}C\u{0305}M\u{0305}X\u{0305}C\u{0305}I\u{0305}X\u{0305}CMXCIX"),
        ]
        for (value, expected) in cases {
            #expect(Numerals.roman(value) == expected, "\(value)")
        }
    }

    @Test("Arabic numbers group thousands")
    func arabic() {
        #expect(Numerals.arabic(0) == "0")
        #expect(Numerals.arabic(999) == "999")
        #expect(Numerals.arabic(1000) == "1,000")
        #expect(Numerals.arabic(999_999_999) == "999,999,999")
    }

    @Test("stick marks: groups of five with a bar, the strokes left over, and bundles of a hundred with a count")
    func sticks() {
        func groups(_ count: Int64) -> (crossed: Int, strokes: Int, bundle: String?) {
            let html = Numerals.sticks(count).string
            let crossed = html.matches(of: /class="sticks__bar"/).count
            let allLines = html.matches(of: /<line x1="\d+" y1="4" x2="\d+" y2="36"\/>/).count
            let bundle = html.firstMatch(of: /× ([\d,]+)/).map { String($0.1) }
            return (crossed, allLines, bundle)
        }
        #expect(groups(0).crossed == 0 && groups(0).strokes == 0)
        #expect(groups(3) == (0, 3, nil))
        #expect(groups(5) == (1, 4, nil))
        #expect(groups(13) == (2, 11, nil))
        #expect(groups(99) == (19, 80, nil))
        let large = groups(1_234_567)
        #expect(large.bundle == "12,345", "a hundred per bundle, counted")
        #expect(large.crossed == 13)
        #expect(Numerals.sticks(1_234_567).string.matches(of: /<svg/).count == 1 + 13 + 1, "readable: one bundle, 13 fives, one group of two")
    }

    @Test("Roman and stick counts carry the plain number for screen readers, and hide the drawing")
    func spoken() {
        let roman = Numerals.render(12, style: .roman).string
        #expect(roman.contains("<span aria-hidden=\"true\">XII</span><span class=\"visually-hidden\">12</span>"))
        let stick = Numerals.render(7, style: .stick).string
        #expect(stick.contains("aria-hidden=\"true\""))
        #expect(stick.contains("<span class=\"visually-hidden\">7</span>"))
    }
}
