//! What stops a library call short of a result, typed, so that each caller
//! words it for its user (a flag or a keyword argument) and picks the exit
//! status: positions in a playbook's own text are [`crate::Diagnostic`]s.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// A setting (a command-line option, an environment variable, a
    /// configuration key, a keyword argument) whose value is not what it
    /// must be.
    Value {
        /// As the user wrote it: `--now`, `SOURCE_DATE_EPOCH`, `now`.
        setting: String,
        value: String,
        expected: String,
    },
    /// A file of settings that does not hold what it must: `place` is
    /// where (`LINE:COL`, `row 2`, `[budget] max-tokens`).
    Content { place: String, message: String },
    /// Arguments that cannot be used as given (an unknown rule code, a
    /// revision git does not know, options that do not go together),
    /// said in one line.
    Usage(String),
    /// What was asked breaks a rule, and nothing was done.
    Refused(String),
    /// A file or stream that could not be read or written.
    Io { path: String, message: String },
}

impl Error {
    pub fn value(setting: &str, value: &str, expected: impl Into<String>) -> Self {
        Error::Value {
            setting: setting.to_owned(),
            value: value.to_owned(),
            expected: expected.into(),
        }
    }

    pub fn io(path: &std::path::Path, e: impl fmt::Display) -> Self {
        Error::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        }
    }

    /// The same error with `prefix` before what it names (`--baseline `).
    pub fn under(mut self, prefix: &str) -> Self {
        match &mut self {
            Error::Value { setting: at, .. }
            | Error::Content { place: at, .. }
            | Error::Io { path: at, .. }
            | Error::Usage(at)
            | Error::Refused(at) => at.insert_str(0, prefix),
        }
        self
    }

    /// The same error, its setting named as a caller spells it (a Python
    /// keyword for a command-line flag).
    pub fn named(mut self, setting: &str) -> Self {
        if let Error::Value { setting: s, .. } = &mut self {
            *s = setting.to_owned();
        }
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // A flag takes its value after a space, a variable or keyword
            // after `=`: as each is written.
            Error::Value {
                setting,
                value,
                expected,
            } => {
                let sep = if setting.starts_with('-') { " " } else { "=" };
                write!(f, "{setting}{sep}{value:?}: expected {expected}")
            }
            Error::Content { place, message } => write!(f, "{place}: {message}"),
            Error::Usage(why) | Error::Refused(why) => f.write_str(why),
            Error::Io { path, message } => write!(f, "{path}: {message}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<Error> for String {
    fn from(e: Error) -> String {
        e.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::Error;

    #[test]
    fn a_value_is_worded_as_its_setting_is_written() {
        let e = Error::value("--now", "soon", "an RFC 3339 time");
        assert_eq!(e.to_string(), r#"--now "soon": expected an RFC 3339 time"#);
        assert_eq!(
            e.named("now").to_string(),
            r#"now="soon": expected an RFC 3339 time"#
        );
    }
}
