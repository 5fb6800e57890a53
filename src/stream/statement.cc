#include "stream/statement.h"

#include <algorithm>
#include <cctype>

namespace mink::stream {
namespace {

struct Token {
  enum class Kind { kWord, kQuotedName, kString, kNumber, kSymbol, kEnd };
  Kind kind = Kind::kEnd;
  std::string text;  // a word as written; a quoted name or string unquoted; a symbol
  size_t begin = 0;  // [begin, end) in the statement's text
  size_t end = 0;
  int line = 1;
};

std::string Upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
  return s;
}

bool WordStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool WordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$'; }

// The tokens of `text` (comments and spaces dropped), ending with a kEnd token.
Result<std::vector<Token>> Tokenize(std::string_view text) {
  std::vector<Token> out;
  int line = 1;
  size_t i = 0;
  auto error = [&](const std::string& what) { return InvalidArgumentError("line " + std::to_string(line) + ": " + what); };
  while (i < text.size()) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      ++i;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (c == '-' && i + 1 < text.size() && text[i + 1] == '-') {
      while (i < text.size() && text[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      const size_t close = text.find("*/", i + 2);
      if (close == std::string_view::npos) return error("a comment is not closed");
      line += static_cast<int>(std::count(text.begin() + static_cast<long>(i), text.begin() + static_cast<long>(close), '\n'));
      i = close + 2;
      continue;
    }
    Token t;
    t.begin = i;
    t.line = line;
    if (c == '\'' || c == '"') {
      t.kind = c == '\'' ? Token::Kind::kString : Token::Kind::kQuotedName;
      ++i;
      while (true) {
        if (i >= text.size()) return error(std::string("a ") + (c == '\'' ? "string" : "quoted name") + " is not closed");
        if (text[i] == c) {
          if (i + 1 < text.size() && text[i + 1] == c) {  // doubled: the quote itself
            t.text += c;
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        if (text[i] == '\n') ++line;
        t.text += text[i++];
      }
    } else if (WordStart(c)) {
      t.kind = Token::Kind::kWord;
      while (i < text.size() && WordChar(text[i])) ++i;
      t.text = std::string(text.substr(t.begin, i - t.begin));
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      t.kind = Token::Kind::kNumber;
      while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
      t.text = std::string(text.substr(t.begin, i - t.begin));
    } else {
      t.kind = Token::Kind::kSymbol;
      t.text = std::string(1, c);
      ++i;
    }
    t.end = i;
    out.push_back(std::move(t));
  }
  Token end;
  end.begin = end.end = text.size();
  end.line = line;
  out.push_back(end);
  return out;
}

std::string Describe(const Token& t) {
  switch (t.kind) {
    case Token::Kind::kEnd: return "the end of the statement";
    case Token::Kind::kString: return "'" + t.text + "'";
    case Token::Kind::kQuotedName: return "\"" + t.text + "\"";
    default: return t.text;
  }
}

class Parser {
 public:
  Parser(std::string_view text, std::vector<Token> tokens) : text_(text), tokens_(std::move(tokens)) {}

  Result<Statement> Parse() {
    Statement s;
    s.text = std::string(text_);
    if (Accept("CREATE")) {
      if (Accept("OR")) {
        MINK_RETURN_IF_ERROR(Expect("REPLACE"));
        s.or_replace = true;
      }
      MINK_ASSIGN_OR_RETURN(s.object, Object());
      if (Accept("IF")) {
        MINK_RETURN_IF_ERROR(Expect("NOT"));
        MINK_RETURN_IF_ERROR(Expect("EXISTS"));
        s.if_not_exists = true;
      }
      MINK_ASSIGN_OR_RETURN(s.name, Name("a name"));
      switch (s.object) {
        case ObjectKind::kSource: MINK_RETURN_IF_ERROR(Source(&s)); break;
        case ObjectKind::kSink: MINK_RETURN_IF_ERROR(Sink(&s)); break;
        default: MINK_RETURN_IF_ERROR(QueryObject(&s)); break;
      }
    } else if (Accept("DROP")) {
      s.kind = StatementKind::kDrop;
      MINK_ASSIGN_OR_RETURN(s.object, Object());
      if (Accept("IF")) {
        MINK_RETURN_IF_ERROR(Expect("EXISTS"));
        s.if_exists = true;
      }
      MINK_ASSIGN_OR_RETURN(s.name, Name("a name"));
    } else if (Accept("SHOW")) {
      s.kind = StatementKind::kShow;
      if (Accept("SOURCES")) {
        s.object = ObjectKind::kSource;
      } else if (Accept("STREAMS")) {
        s.object = ObjectKind::kStream;
      } else if (Accept("SINKS")) {
        s.object = ObjectKind::kSink;
      } else if (Accept("MATERIALIZED")) {
        MINK_RETURN_IF_ERROR(Expect("VIEWS"));
        s.object = ObjectKind::kView;
      } else {
        return Unexpected("SOURCES, STREAMS, MATERIALIZED VIEWS or SINKS");
      }
    } else if (Accept("DESCRIBE")) {
      s.kind = StatementKind::kDescribe;
      MINK_ASSIGN_OR_RETURN(s.name, Name("a name"));
    } else if (Accept("SUBSCRIBE")) {
      s.kind = StatementKind::kSubscribe;
      MINK_ASSIGN_OR_RETURN(s.name, Name("a name"));
    } else if (Accept("EXPLAIN")) {
      s.kind = StatementKind::kExplain;
      s.query = Rest();
      if (s.query.empty()) return Unexpected("a statement");
      pos_ = tokens_.size() - 1;
    } else {
      s.kind = StatementKind::kQuery;
      s.query = s.text;
      pos_ = tokens_.size() - 1;
    }
    if (Peek().kind != Token::Kind::kEnd) return Unexpected("the end of the statement");
    return s;
  }

 private:
  const Token& Peek(size_t ahead = 0) const { return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)]; }
  bool IsWord(const Token& t, std::string_view keyword) const {
    return t.kind == Token::Kind::kWord && Upper(t.text) == keyword;
  }
  bool Accept(std::string_view keyword) {
    if (!IsWord(Peek(), keyword)) return false;
    ++pos_;
    return true;
  }
  bool AcceptSymbol(char c) {
    if (Peek().kind != Token::Kind::kSymbol || Peek().text[0] != c) return false;
    ++pos_;
    return true;
  }
  Status Unexpected(const std::string& expected) const {
    return InvalidArgumentError("line " + std::to_string(Peek().line) + ": expected " + expected + ", found " +
                                Describe(Peek()));
  }
  Status Expect(std::string_view keyword) { return Accept(keyword) ? Status::Ok() : Unexpected(std::string(keyword)); }
  Status ExpectSymbol(char c) { return AcceptSymbol(c) ? Status::Ok() : Unexpected(std::string("'") + c + "'"); }

  Result<std::string> Name(const std::string& what) {
    const Token& t = Peek();
    if (t.kind != Token::Kind::kWord && t.kind != Token::Kind::kQuotedName) return Unexpected(what);
    ++pos_;
    return t.text;
  }
  // The statement's text from the current token to its end.
  std::string Rest() const { return std::string(text_.substr(Peek().begin)); }
  // The text of tokens [from, to).
  std::string Slice(size_t from, size_t to) const {
    if (from >= to) return "";
    return std::string(text_.substr(tokens_[from].begin, tokens_[to - 1].end - tokens_[from].begin));
  }

  Result<ObjectKind> Object() {
    if (Accept("SOURCE")) return ObjectKind::kSource;
    if (Accept("STREAM")) return ObjectKind::kStream;
    if (Accept("SINK")) return ObjectKind::kSink;
    if (Accept("MATERIALIZED")) {
      MINK_RETURN_IF_ERROR(Expect("VIEW"));
      return ObjectKind::kView;
    }
    return Unexpected("SOURCE, STREAM, MATERIALIZED VIEW or SINK");
  }

  // ( name TYPE [NOT NULL], ..., [WATERMARK FOR column [AS expression]] )
  Status Columns(Statement* s) {
    MINK_RETURN_IF_ERROR(ExpectSymbol('('));
    while (true) {
      if (Accept("WATERMARK")) {
        if (s->watermark) return InvalidArgumentError("line " + std::to_string(Peek().line) + ": a second WATERMARK");
        MINK_RETURN_IF_ERROR(Expect("FOR"));
        WatermarkDef w;
        MINK_ASSIGN_OR_RETURN(w.column, Name("the watermark's column"));
        if (Accept("AS")) {
          const size_t from = pos_;
          SkipToItemEnd();
          w.expression = Slice(from, pos_);
          if (w.expression.empty()) return Unexpected("the watermark's expression");
        }
        s->watermark = std::move(w);
      } else {
        ColumnDef c;
        MINK_ASSIGN_OR_RETURN(c.name, Name("a column name"));
        // A type: its name, then arguments in parentheses and the words of multi-word types
        // ("DOUBLE PRECISION", "TIMESTAMP WITH TIME ZONE"), so a missing ',' is found.
        const size_t from = pos_;
        if (Peek().kind != Token::Kind::kWord) return Unexpected("the type of column " + c.name);
        ++pos_;
        while (true) {
          if (Peek().kind == Token::Kind::kSymbol && (Peek().text == "(" || Peek().text == "[")) {
            const char close = Peek().text == "(" ? ')' : ']';
            while (Peek().kind != Token::Kind::kEnd && !(Peek().kind == Token::Kind::kSymbol && Peek().text[0] == close)) {
              ++pos_;
            }
            MINK_RETURN_IF_ERROR(ExpectSymbol(close));
          } else if (IsWord(Peek(), "PRECISION") || IsWord(Peek(), "WITH") || IsWord(Peek(), "WITHOUT") ||
                     IsWord(Peek(), "TIME") || IsWord(Peek(), "ZONE") || IsWord(Peek(), "VARYING") ||
                     IsWord(Peek(), "LOCAL")) {
            ++pos_;
          } else {
            break;
          }
        }
        const size_t type_end = pos_;
        c.type = Slice(from, type_end);
        if (c.type.empty()) return Unexpected("the type of column " + c.name);
        if (Accept("NOT")) {
          MINK_RETURN_IF_ERROR(Expect("NULL"));
          c.not_null = true;
        } else {
          Accept("NULL");
        }
        s->columns.push_back(std::move(c));
      }
      if (AcceptSymbol(')')) break;
      MINK_RETURN_IF_ERROR(ExpectSymbol(','));
    }
    // A list with only a watermark declares it over the connector's columns (a MINK table's).
    if (s->columns.empty() && !s->watermark) return InvalidArgumentError("source " + s->name + " has no columns");
    if (s->watermark && !s->columns.empty() && std::none_of(s->columns.begin(), s->columns.end(),
                                     [&](const ColumnDef& c) { return c.name == s->watermark->column; })) {
      return InvalidArgumentError("the watermark of " + s->name + " is for " + s->watermark->column +
                                  ", which is not one of its columns");
    }
    return Status::Ok();
  }
  // Moves to the ',' or ')' that ends the current item of a parenthesised list.
  void SkipToItemEnd() {
    int depth = 0;
    while (Peek().kind != Token::Kind::kEnd) {
      if (Peek().kind == Token::Kind::kSymbol) {
        if (depth == 0 && (Peek().text == "," || Peek().text == ")")) return;
        if (Peek().text == "(") ++depth;
        if (Peek().text == ")") --depth;
      }
      ++pos_;
    }
  }

  // connector [( 'key' = 'value', ... )]
  Status Connector(Statement* s) {
    MINK_ASSIGN_OR_RETURN(std::string connector, Name("a connector (KAFKA, MINK, GENERATOR)"));
    s->connector = Upper(connector);
    if (!AcceptSymbol('(')) return Status::Ok();
    if (AcceptSymbol(')')) return Status::Ok();
    while (true) {
      const Token& key = Peek();
      if (key.kind != Token::Kind::kString && key.kind != Token::Kind::kWord && key.kind != Token::Kind::kQuotedName) {
        return Unexpected("an option name");
      }
      ++pos_;
      MINK_RETURN_IF_ERROR(ExpectSymbol('='));
      const Token& value = Peek();
      if (value.kind == Token::Kind::kEnd || value.kind == Token::Kind::kSymbol) return Unexpected("the value of " + key.text);
      ++pos_;
      if (OptionOf(*s, key.text)) return InvalidArgumentError("option '" + key.text + "' is given twice");
      s->options.emplace_back(key.text, value.text);
      if (AcceptSymbol(')')) return Status::Ok();
      MINK_RETURN_IF_ERROR(ExpectSymbol(','));
    }
  }

  Status Format(Statement* s) {
    if (!Accept("FORMAT")) return Status::Ok();
    MINK_ASSIGN_OR_RETURN(std::string format, Name("a format (JSON)"));
    s->format = Upper(format);
    return Status::Ok();
  }

  Status Source(Statement* s) {
    s->kind = StatementKind::kCreateSource;
    if (Peek().kind == Token::Kind::kSymbol && Peek().text == "(") MINK_RETURN_IF_ERROR(Columns(s));
    if (Accept("FROM")) MINK_RETURN_IF_ERROR(Connector(s));
    MINK_RETURN_IF_ERROR(Format(s));
    // The connector-first form: FROM ... FORMAT ... [SCHEMA] (columns).
    const bool schema = Accept("SCHEMA");
    if (s->columns.empty() && (schema || (Peek().kind == Token::Kind::kSymbol && Peek().text == "("))) {
      MINK_RETURN_IF_ERROR(Columns(s));
    }
    if (s->connector.empty() && s->columns.empty()) return Unexpected("a column list or FROM");
    return Status::Ok();
  }

  Status Sink(Statement* s) {
    s->kind = StatementKind::kCreateSink;
    MINK_RETURN_IF_ERROR(Expect("FROM"));
    MINK_ASSIGN_OR_RETURN(s->from, Name("the stream or view the sink sends"));
    if (Accept("INTO")) MINK_RETURN_IF_ERROR(Connector(s));
    return Format(s);
  }

  // Whether the token at `i` starts a clause after a stream's query: EMIT, ALLOW LATENESS,
  // LATE DATA TO.
  bool ClauseAt(size_t i) const {
    const Token& t = tokens_[i];
    if (IsWord(t, "EMIT")) return true;
    if (i + 1 >= tokens_.size()) return false;
    return (IsWord(t, "ALLOW") && IsWord(tokens_[i + 1], "LATENESS")) ||
           (IsWord(t, "LATE") && IsWord(tokens_[i + 1], "DATA"));
  }

  // AS <query> [EMIT words...] [ALLOW LATENESS <interval>] [LATE DATA TO <name>], the clauses in
  // any order.
  Status QueryObject(Statement* s) {
    s->kind = s->object == ObjectKind::kView ? StatementKind::kCreateView : StatementKind::kCreateStream;
    MINK_RETURN_IF_ERROR(Expect("AS"));
    const size_t from = pos_;
    size_t end = tokens_.size() - 1;
    int depth = 0;
    for (size_t i = from; i + 1 < tokens_.size(); ++i) {
      const Token& t = tokens_[i];
      if (t.kind == Token::Kind::kSymbol && t.text == "(") ++depth;
      if (t.kind == Token::Kind::kSymbol && t.text == ")") --depth;
      if (depth == 0 && i > from && ClauseAt(i)) {
        end = i;
        break;
      }
    }
    s->query = Slice(from, end);
    if (s->query.empty()) return Unexpected("a query");
    pos_ = end;
    while (Peek().kind != Token::Kind::kEnd) {
      if (Accept("EMIT")) {
        if (!s->emit.empty()) return InvalidArgumentError("EMIT is given twice");
        while (Peek().kind == Token::Kind::kWord && !ClauseAt(pos_)) {
          s->emit += (s->emit.empty() ? "" : " ") + Upper(Peek().text);
          ++pos_;
        }
        if (s->emit.empty()) return Unexpected("what to emit (ON WINDOW CLOSE, CHANGES)");
      } else if (Accept("ALLOW")) {
        MINK_RETURN_IF_ERROR(Expect("LATENESS"));
        if (!s->allowed_lateness.empty()) return InvalidArgumentError("ALLOW LATENESS is given twice");
        const size_t start = pos_;
        while (Peek().kind != Token::Kind::kEnd && !ClauseAt(pos_)) ++pos_;
        s->allowed_lateness = Slice(start, pos_);
        if (s->allowed_lateness.empty()) return Unexpected("an interval (ALLOW LATENESS INTERVAL '10' SECOND)");
      } else if (Accept("LATE")) {
        MINK_RETURN_IF_ERROR(Expect("DATA"));
        MINK_RETURN_IF_ERROR(Expect("TO"));
        if (!s->late_data_to.empty()) return InvalidArgumentError("LATE DATA TO is given twice");
        MINK_ASSIGN_OR_RETURN(s->late_data_to, Name("the name of the table of late rows"));
      } else {
        return Unexpected("EMIT, ALLOW LATENESS, LATE DATA TO or the end of the statement");
      }
    }
    return Status::Ok();
  }

  std::string_view text_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
};

}  // namespace

const char* ObjectKindName(ObjectKind kind) {
  switch (kind) {
    case ObjectKind::kSource: return "SOURCE";
    case ObjectKind::kStream: return "STREAM";
    case ObjectKind::kView: return "MATERIALIZED VIEW";
    case ObjectKind::kSink: return "SINK";
    case ObjectKind::kNone: break;
  }
  return "";
}

std::optional<std::string> OptionOf(const Statement& s, std::string_view key) {
  const std::string wanted = Upper(std::string(key));
  for (const auto& [k, v] : s.options) {
    if (Upper(k) == wanted) return v;
  }
  return std::nullopt;
}

Result<std::vector<Statement>> ParseStatements(std::string_view sql) {
  MINK_ASSIGN_OR_RETURN(std::vector<Token> tokens, Tokenize(sql));
  std::vector<Statement> out;
  size_t first = 0;
  int depth = 0;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const Token& t = tokens[i];
    if (t.kind == Token::Kind::kSymbol && t.text == "(") ++depth;
    if (t.kind == Token::Kind::kSymbol && t.text == ")") --depth;
    const bool end = t.kind == Token::Kind::kEnd || (depth == 0 && t.kind == Token::Kind::kSymbol && t.text == ";");
    if (!end) continue;
    if (i > first) {
      const size_t begin = tokens[first].begin;
      const std::string_view text = sql.substr(begin, tokens[i - 1].end - begin);
      // The statement's tokens, at offsets in its own text; lines stay the whole text's.
      std::vector<Token> own(tokens.begin() + static_cast<long>(first), tokens.begin() + static_cast<long>(i));
      for (auto& o : own) {
        o.begin -= begin;
        o.end -= begin;
      }
      Token stop;
      stop.begin = stop.end = text.size();
      stop.line = own.back().line;
      own.push_back(stop);
      auto parsed = Parser(text, std::move(own)).Parse();
      if (!parsed.ok()) return parsed.status();
      out.push_back(std::move(*parsed));
    }
    first = i + 1;
  }
  return out;
}

Result<Statement> ParseStatement(std::string_view sql) {
  MINK_ASSIGN_OR_RETURN(auto statements, ParseStatements(sql));
  if (statements.size() != 1) {
    return InvalidArgumentError("expected one statement, found " + std::to_string(statements.size()));
  }
  return std::move(statements.front());
}

}  // namespace mink::stream
