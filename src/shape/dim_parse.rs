//! Reading symbolic sizes back from text: the grammar [`super::dim`] prints (`batch*seq*12`,
//! `ceil(h/32)*2+1`, `min(seq, 512)`, `broadcast(M, N)`) and the expression-shaped `dim_param` names
//! exporters write (the dynamo exporter's `2*h2`, `s0 + 1`, `floor(s0/2)`, `(s0//2)`, `Max(1, s0)`).
//!
//! A small recursive-descent parser over the tokens of the text; every value is built through
//! [`Poly`], so what is read is in normal form and meets the sizes inference computes (`2*h2` read
//! from a name is the `h2*2` a Concat of two `h2` gives). Division is carried exactly as a numerator
//! over a positive constant until a `floor`, `ceil` or `//` takes it, or it divides out; what cannot be
//! read exactly (a `/` that does not divide, a division by a symbol, overflow, nesting deeper than
//! [`MAX_NESTING`]) is no expression (`None`), never an approximation.
//!
//! Grammar (whitespace is free between tokens):
//! ```text
//! expr    := term (('+' | '-') term)*
//! term    := unary (('*' unary) | ('/' unary) | ('//' unary) | ('%' unary))*
//! unary   := '-' unary | '+' unary | primary
//! primary := number | name | '(' expr ')' | func '(' expr (',' expr)* ')'
//! func    := floor | ceil | ceiling | min | Min | max | Max | Mod | broadcast
//! name    := letters, digits, '_', '.', ':', '[', ']' (not all digits)
//! ```
//! A divisor (`/`, `//`, `%`, `Mod`'s second operand) must be a positive constant.

use super::dim::{Dim, SymExpr};
use super::poly::Poly;

/// Deepest nesting of parentheses and unary signs read; deeper text is no expression (and no deep
/// recursion on hostile input).
pub const MAX_NESTING: usize = 64;

/// The size `text` stands for, as a polynomial; `None` when it is not an expression of the grammar
/// or cannot be read exactly.
pub fn parse(text: &str) -> Option<Poly> {
    let tokens = tokenize(text)?;
    let mut p = Parser {
        tokens: &tokens,
        at: 0,
        depth: 0,
    };
    let value = p.expr()?;
    if p.at != tokens.len() {
        return None;
    }
    value.exact()
}

/// A dimension as printed: `?` is unknown, a number is known, anything else an expression.
pub fn parse_dim(text: &str) -> Option<Dim> {
    match text.trim() {
        "?" => Some(Dim::Unknown),
        t => {
            let p = parse(t)?;
            match p.as_constant() {
                Some(c) => u64::try_from(c).ok().map(Dim::Known),
                None => p.into_expr().map(Dim::Sym),
            }
        }
    }
}

/// The expression a `dim_param` name spells, when it unambiguously is one: it has an operator or a
/// call (`2*h2`, `s0 + 1`, `floor(s0/2)`), reads fully in the grammar, and involves a symbol. A `-`
/// joining two words (`batch-size`, `max-len`) makes a name, not a difference; a name without an
/// operator (`batch`, `seq_len`, `x[3]`) is a symbol as it is.
pub fn expression_name(name: &str) -> Option<SymExpr> {
    let b = name.as_bytes();
    let has_operator = b
        .iter()
        .any(|c| matches!(c, b'+' | b'-' | b'*' | b'/' | b'%' | b'('));
    if !has_operator {
        return None;
    }
    let hyphenated = b.windows(3).any(|w| {
        w[1] == b'-'
            && (w[0].is_ascii_alphanumeric() || w[0] == b'_')
            && (w[2].is_ascii_alphabetic() || w[2] == b'_')
    });
    if hyphenated {
        return None;
    }
    let p = parse(name)?;
    if p.as_constant().is_some() {
        return None;
    }
    p.into_expr()
}

#[derive(Clone, Debug, PartialEq)]
enum Tok<'a> {
    Num(i64),
    Name(&'a str),
    Plus,
    Minus,
    Star,
    Slash,
    SlashSlash,
    Percent,
    Open,
    Close,
    Comma,
}

/// Whether `c` belongs in a name (the characters `dim::is_identifier` accepts).
fn name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '.' | ':' | '[' | ']')
}

fn tokenize(text: &str) -> Option<Vec<Tok<'_>>> {
    let mut out = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let tok = match c {
            c if c.is_whitespace() => continue,
            '+' => Tok::Plus,
            '-' => Tok::Minus,
            '*' => Tok::Star,
            '/' if chars.peek().is_some_and(|&(_, n)| n == '/') => {
                chars.next();
                Tok::SlashSlash
            }
            '/' => Tok::Slash,
            '%' => Tok::Percent,
            '(' => Tok::Open,
            ')' => Tok::Close,
            ',' => Tok::Comma,
            c if name_char(c) => {
                let mut end = i + c.len_utf8();
                while let Some(&(j, n)) = chars.peek() {
                    if !name_char(n) {
                        break;
                    }
                    end = j + n.len_utf8();
                    chars.next();
                }
                let word = &text[i..end];
                if word.bytes().all(|b| b.is_ascii_digit()) {
                    Tok::Num(word.parse().ok()?)
                } else {
                    Tok::Name(word)
                }
            }
            _ => return None,
        };
        out.push(tok);
    }
    Some(out)
}

/// A value being read: `num / den`, `den >= 1`.
#[derive(Clone, Debug)]
struct Ratio {
    num: Poly,
    den: i64,
}

impl Ratio {
    fn whole(num: Poly) -> Self {
        Ratio { num, den: 1 }
    }

    /// The value as a polynomial, when the division is exact.
    fn exact(self) -> Option<Poly> {
        if self.den == 1 {
            return Some(self.num);
        }
        self.num.div_exact(&Poly::constant(self.den))
    }

    /// The same value with the denominator reduced where the numerator allows.
    fn reduced(self) -> Self {
        if self.den > 1
            && let Some(q) = self.num.div_exact(&Poly::constant(self.den))
        {
            return Ratio::whole(q);
        }
        self
    }

    fn add(&self, other: &Ratio) -> Option<Ratio> {
        let a = self.num.mul(&Poly::constant(other.den))?;
        let b = other.num.mul(&Poly::constant(self.den))?;
        Some(
            Ratio {
                num: a.add(&b)?,
                den: self.den.checked_mul(other.den)?,
            }
            .reduced(),
        )
    }

    fn neg(&self) -> Option<Ratio> {
        Some(Ratio {
            num: self.num.neg()?,
            den: self.den,
        })
    }

    fn mul(&self, other: &Ratio) -> Option<Ratio> {
        Some(
            Ratio {
                num: self.num.mul(&other.num)?,
                den: self.den.checked_mul(other.den)?,
            }
            .reduced(),
        )
    }

    /// The positive constant it is, for a divisor.
    fn positive_constant(&self) -> Option<i64> {
        let c = self.clone().exact()?.as_constant()?;
        (c > 0).then_some(c)
    }

    /// `self / k` exactly, `k >= 1`.
    fn div(&self, k: i64) -> Option<Ratio> {
        Some(
            Ratio {
                num: self.num.clone(),
                den: self.den.checked_mul(k)?,
            }
            .reduced(),
        )
    }

    fn floor(&self) -> Option<Ratio> {
        Some(Ratio::whole(self.num.floor_div(self.den)?))
    }

    fn ceil(&self) -> Option<Ratio> {
        Some(Ratio::whole(self.num.ceil_div(self.den)?))
    }

    /// `self mod k` (Python's and sympy's: the sign of `k`), `k >= 1`.
    fn modulo(&self, k: i64) -> Option<Ratio> {
        let q = self.div(k)?.floor()?;
        self.add(&q.mul(&Ratio::whole(Poly::constant(k)))?.neg()?)
    }
}

struct Parser<'t, 'a> {
    tokens: &'t [Tok<'a>],
    at: usize,
    depth: usize,
}

impl<'a> Parser<'_, 'a> {
    fn peek(&self) -> Option<&Tok<'a>> {
        self.tokens.get(self.at)
    }

    fn eat(&mut self, t: &Tok<'_>) -> bool {
        if self.peek() == Some(t) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn enter(&mut self) -> Option<()> {
        self.depth += 1;
        (self.depth <= MAX_NESTING).then_some(())
    }

    fn expr(&mut self) -> Option<Ratio> {
        let mut acc = self.term()?;
        loop {
            if self.eat(&Tok::Plus) {
                acc = acc.add(&self.term()?)?;
            } else if self.eat(&Tok::Minus) {
                acc = acc.add(&self.term()?.neg()?)?;
            } else {
                return Some(acc);
            }
        }
    }

    fn term(&mut self) -> Option<Ratio> {
        let mut acc = self.unary()?;
        loop {
            if self.eat(&Tok::Star) {
                acc = acc.mul(&self.unary()?)?;
            } else if self.eat(&Tok::Slash) {
                let k = self.unary()?.positive_constant()?;
                acc = acc.div(k)?;
            } else if self.eat(&Tok::SlashSlash) {
                let k = self.unary()?.positive_constant()?;
                acc = acc.div(k)?.floor()?;
            } else if self.eat(&Tok::Percent) {
                let k = self.unary()?.positive_constant()?;
                acc = acc.modulo(k)?;
            } else {
                return Some(acc);
            }
        }
    }

    fn unary(&mut self) -> Option<Ratio> {
        self.enter()?;
        let value = if self.eat(&Tok::Minus) {
            self.unary()?.neg()
        } else if self.eat(&Tok::Plus) {
            self.unary()
        } else {
            self.primary()
        };
        self.depth -= 1;
        value
    }

    fn primary(&mut self) -> Option<Ratio> {
        let tok = self.peek()?.clone();
        self.at += 1;
        match tok {
            Tok::Num(n) => Some(Ratio::whole(Poly::constant(n))),
            Tok::Open => {
                let inner = self.expr()?;
                self.eat(&Tok::Close).then_some(inner)
            }
            Tok::Name(name) if self.peek() == Some(&Tok::Open) => {
                self.at += 1;
                let mut args = vec![self.expr()?];
                while self.eat(&Tok::Comma) {
                    args.push(self.expr()?);
                }
                if !self.eat(&Tok::Close) {
                    return None;
                }
                call(name, args)
            }
            Tok::Name(name) => Some(Ratio::whole(Poly::of(&SymExpr::var(name)))),
            _ => None,
        }
    }
}

/// The value of a function of the grammar applied to `args`.
fn call(name: &str, args: Vec<Ratio>) -> Option<Ratio> {
    match (name, args.as_slice()) {
        ("floor", [x]) => x.floor(),
        ("ceil" | "ceiling", [x]) => x.ceil(),
        ("Mod" | "mod", [x, k]) => x.modulo(k.positive_constant()?),
        ("min" | "Min" | "max" | "Max", [_, _, ..]) => {
            let parts = args
                .into_iter()
                .map(Ratio::exact)
                .collect::<Option<Vec<_>>>()?;
            let out = if name.eq_ignore_ascii_case("min") {
                Poly::min(&parts)
            } else {
                Poly::max(&parts)
            };
            out.map(Ratio::whole)
        }
        ("broadcast", [_, _, ..]) => {
            // A broadcast's operands are sizes that are not constants (a constant one is resolved
            // before a broadcast is built).
            let parts = args
                .into_iter()
                .map(|a| a.exact()?.into_expr())
                .collect::<Option<Vec<_>>>()?;
            Some(Ratio::whole(Poly::of(&SymExpr::broadcast(parts))))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> Option<String> {
        Some(parse(s)?.into_value().to_string())
    }

    #[test]
    fn reads_what_dim_prints() {
        for s in [
            "batch*seq*12",
            "seq+1",
            "-seq+2",
            "seq-1",
            "batch*seq+batch+seq",
            "ceil(h/32)*2",
            "floor(h/2)",
            "floor((h+1)/4)+1",
            "ceil((h+w)/3)",
            "min(seq, 512)",
            "max(seq-3, 0)",
            "broadcast(M, N)",
            "broadcast(N, seq+1)",
            "broadcast(M, N)*2",
            "x[3]*2",
            "batch*seq.len",
        ] {
            assert_eq!(text(s).as_deref(), Some(s), "{s}");
        }
    }

    #[test]
    fn reads_exporters_spelling_into_normal_form() {
        let same = |a: &str, b: &str| {
            assert_eq!(parse(a), parse(b), "{a} vs {b}");
            assert!(parse(a).is_some(), "{a}");
        };
        same("2*h2", "h2*2");
        same("s0 + 1", "s0+1");
        same("floor(s0/2)", "s0//2");
        same("(s0//2)", "floor(s0/2)");
        same("ceiling(s0/2)", "ceil(s0/2)");
        same("ceil(2*h2/2)*2", "2*h2");
        same("Max(1, s0)", "max(s0, 1)");
        same("Mod(s0, 4)", "s0 - 4*floor(s0/4)");
        same("s0 % 4", "Mod(s0, 4)");
        same("((s0 - 1)//2) + 1", "ceil(s0/2)");
        same("-(s0 + 1)", "-s0 - 1");
        same("(s0 + 1)*(s1 + 1)", "s0*s1 + s0 + s1 + 1");
        same("s0/2*4", "2*s0");
        assert_eq!(parse("7").and_then(|p| p.as_constant()), Some(7));
        assert_eq!(parse_dim("?"), Some(Dim::Unknown));
        assert_eq!(parse_dim("12"), Some(Dim::Known(12)));
        assert_eq!(parse_dim("seq"), Some(Dim::sym("seq")));
    }

    #[test]
    fn what_is_not_exact_or_not_the_grammar_is_nothing() {
        for s in [
            "",
            "s0/2",
            "s0/s1",
            "s0//0",
            "s0//-2",
            "floor(s0/s1)",
            "s0 +",
            "(s0",
            "s0)",
            "s0 s1",
            "f(s0)",
            "min(s0)",
            "broadcast(s0, 1)",
            "s0 $ 1",
            "99999999999999999999",
            "s0*9223372036854775807*2",
        ] {
            assert_eq!(parse(s), None, "{s:?}");
        }
        let deep = format!("{}s0{}", "(".repeat(10_000), ")".repeat(10_000));
        assert_eq!(parse(&deep), None, "nesting beyond MAX_NESTING");
        let minus = format!("{}s0", "-".repeat(10_000));
        assert_eq!(parse(&minus), None);
        let ok = format!("{}s0{}", "(".repeat(20), ")".repeat(20));
        assert_eq!(parse(&ok), parse("s0"));
    }

    #[test]
    fn only_unambiguous_expressions_are_names_read_as_expressions() {
        let e = |s: &str| expression_name(s).map(|e| e.to_string());
        assert_eq!(e("2*h2").as_deref(), Some("h2*2"));
        assert_eq!(e("s0 + 1").as_deref(), Some("s0+1"));
        assert_eq!(e("floor(s0/2)").as_deref(), Some("floor(s0/2)"));
        assert_eq!(e("n-1").as_deref(), Some("n-1"));
        for plain in [
            "batch",
            "seq_len",
            "x[3]",
            "batch-size",
            "max-len",
            "num_frames - num-pad",
            "h/2",
            "1+1",
            "-1",
            "unk__42",
            "a b",
        ] {
            assert_eq!(e(plain), None, "{plain}");
        }
    }

    /// xorshift64*: a fixed sequence, so a failure is found again.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }

        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    const NAMES: [&str; 4] = ["a", "b2", "seq.len", "x[3]"];

    /// A random size built the way inference builds them: through [`Poly`]'s operations.
    fn random_poly(rng: &mut Rng, depth: u32) -> Poly {
        let leaf = |rng: &mut Rng| {
            if rng.below(3) == 0 {
                Poly::constant(rng.below(9) as i64)
            } else {
                Poly::of(&SymExpr::var(NAMES[rng.below(NAMES.len() as u64) as usize]))
            }
        };
        if depth == 0 {
            return leaf(rng);
        }
        let a = random_poly(rng, depth - 1);
        let b = random_poly(rng, depth - 1);
        let k = 1 + rng.below(7) as i64;
        let out = match rng.below(9) {
            0 => a.add(&b),
            1 => a.sub(&b),
            2 => a.mul(&b),
            3 => a.floor_div(k),
            4 => a.ceil_div(k),
            5 => Poly::min(&[a, b]),
            6 => Poly::max(&[a, b]),
            7 => match (a.clone().into_expr(), b.clone().into_expr()) {
                (Some(x), Some(y)) => Some(Poly::of(&SymExpr::broadcast([x, y]))),
                _ => Some(a),
            },
            _ => a.mul(&Poly::constant(k)),
        };
        out.unwrap_or_else(|| leaf(rng))
    }

    #[test]
    fn printing_then_reading_gives_the_same_value_at_random_sizes() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut compared = 0;
        for case in 0..3000 {
            let p = random_poly(&mut rng, 1 + (case % 4));
            let Some(e) = p.clone().into_expr() else {
                continue;
            };
            let printed = e.to_string();
            let back = parse(&printed).unwrap_or_else(|| panic!("{printed} not read back"));
            let read = back.clone().into_expr();
            for _ in 0..8 {
                let vals: Vec<i64> = NAMES.iter().map(|_| rng.below(200) as i64).collect();
                let env = |n: &str| NAMES.iter().position(|x| *x == n).map(|i| vals[i]);
                let want = e.eval(&env);
                let got = read.as_ref().and_then(|r| r.eval(&env));
                assert_eq!(got, want, "{printed} at {vals:?}");
                compared += 1;
            }
            // The normal form is one form: reading gives the very expression printed.
            assert_eq!(back, p, "{printed}");
        }
        assert!(compared > 10_000, "{compared} comparisons");
    }
}
