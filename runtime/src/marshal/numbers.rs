//! Exact integer values of JSON numbers' text (never through `f64`).

/// Why a number is not an acceptable integer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumberError {
    /// It has a non-zero fraction.
    NotInteger,
    /// It is beyond the 128-bit range used for checking.
    OutOfRange,
}

/// The exact value of a JSON number's text, when it is an integer (`2`, `-7`, `2.0`, `1e3`).
pub fn exact_integer(text: &str) -> Result<i128, NumberError> {
    exact_integer_scaled(text, 0)
}

/// The exact value of a JSON number's text times `10^shift`, when that is an integer.
pub fn exact_integer_scaled(text: &str, shift: i64) -> Result<i128, NumberError> {
    let (negative, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], &body[i + 1..]),
        None => (body, "0"),
    };
    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int_part.is_empty()
        || !int_part
            .bytes()
            .chain(frac_part.bytes())
            .all(|b| b.is_ascii_digit())
    {
        return Err(NumberError::NotInteger);
    }
    let exponent: i64 = {
        let digits = exponent.trim_start_matches(['+', '-']);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(NumberError::NotInteger);
        }
        // Absurd exponents are saturated; the checks below then decide.
        let magnitude: i64 = digits.parse().unwrap_or(i64::MAX / 2);
        let exponent = if exponent.starts_with('-') {
            -magnitude
        } else {
            magnitude
        };
        exponent.saturating_add(shift)
    };
    let all_digits: String = format!("{int_part}{frac_part}");
    let significant = all_digits.trim_start_matches('0');
    if significant.is_empty() {
        return Ok(0);
    }
    // value = significant * 10^(scale)
    let trailing = significant.len() - significant.trim_end_matches('0').len();
    let digits = significant.trim_end_matches('0');
    let scale = exponent
        .saturating_sub(frac_part.len() as i64)
        .saturating_add(trailing as i64);
    if scale < 0 {
        return Err(NumberError::NotInteger);
    }
    if digits.len() as i64 + scale > 39 {
        return Err(NumberError::OutOfRange);
    }
    let mut value: i128 = digits.parse().map_err(|_| NumberError::OutOfRange)?;
    for _ in 0..scale {
        value = value.checked_mul(10).ok_or(NumberError::OutOfRange)?;
    }
    Ok(if negative { -value } else { value })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_integers() {
        assert_eq!(exact_integer("18446744073709551615"), Ok(u64::MAX as i128));
        assert_eq!(exact_integer("-9223372036854775808"), Ok(i64::MIN as i128));
        assert_eq!(exact_integer("2.0"), Ok(2));
        assert_eq!(exact_integer("2.50e1"), Ok(25));
        assert_eq!(exact_integer("1e3"), Ok(1000));
        assert_eq!(exact_integer("0.0"), Ok(0));
        assert_eq!(exact_integer("-0"), Ok(0));
        assert_eq!(exact_integer("2.5"), Err(NumberError::NotInteger));
        assert_eq!(
            exact_integer("4503599627370496.5"),
            Err(NumberError::NotInteger)
        );
        assert_eq!(exact_integer("1e-1"), Err(NumberError::NotInteger));
        assert_eq!(exact_integer("1e400"), Err(NumberError::OutOfRange));
        assert_eq!(
            exact_integer("1e99999999999999999999"),
            Err(NumberError::OutOfRange)
        );
        assert_eq!(exact_integer("0e99999999999999999999"), Ok(0));
        assert_eq!(exact_integer("100e-2"), Ok(1));
        assert_eq!(
            exact_integer_scaled("922337203685477.5807", 4),
            Ok(i64::MAX as i128)
        );
        assert_eq!(
            exact_integer_scaled("0.00001", 4),
            Err(NumberError::NotInteger)
        );
    }
}
