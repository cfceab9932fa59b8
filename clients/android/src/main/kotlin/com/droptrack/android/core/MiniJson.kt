package com.droptrack.android.core

/**
 * The little JSON the library needs (request bodies, the server's answers, the test vectors),
 * so the library carries no dependency. Objects read as `Map<String, Any?>` (key order kept),
 * arrays as `List<Any?>`, whole numbers as `Long`, other numbers as `Double`.
 */
object MiniJson {
    fun parse(text: String): Any? {
        val reader = Reader(text)
        val value = reader.value()
        reader.skipSpace()
        if (reader.at < text.length) throw IllegalArgumentException("JSON: trailing text at ${reader.at}")
        return value
    }

    fun write(value: Any?): String {
        val out = StringBuilder()
        write(value, out)
        return out.toString()
    }

    private fun write(value: Any?, out: StringBuilder) {
        when (value) {
            null -> out.append("null")
            is String -> quote(value, out)
            is Boolean, is Int, is Long -> out.append(value.toString())
            is Double -> out.append(if (value == Math.floor(value) && Math.abs(value) < 1e15) value.toLong().toString() else value.toString())
            is Map<*, *> -> {
                out.append('{')
                var first = true
                for ((key, item) in value) {
                    if (!first) out.append(',')
                    first = false
                    quote(key.toString(), out)
                    out.append(':')
                    write(item, out)
                }
                out.append('}')
            }
            is List<*> -> {
                out.append('[')
                value.forEachIndexed { index, item ->
                    if (index > 0) out.append(',')
                    write(item, out)
                }
                out.append(']')
            }
            else -> throw IllegalArgumentException("JSON: cannot write ${value.javaClass.name}")
        }
    }

    private fun quote(text: String, out: StringBuilder) {
        out.append('"')
        for (c in text) {
            when {
                c == '"' -> out.append("\\\"")
                c == '\\' -> out.append("\\\\")
                c == '\n' -> out.append("\\n")
                c == '\r' -> out.append("\\r")
                c == '\t' -> out.append("\\t")
                c < ' ' -> out.append(String.format("\\u%04x", c.toInt()))
                else -> out.append(c)
            }
        }
        out.append('"')
    }

    private class Reader(val text: String) {
        var at = 0

        fun skipSpace() {
            while (at < text.length && text[at] in " \t\r\n") at++
        }

        fun fail(what: String): Nothing = throw IllegalArgumentException("JSON: $what at $at")

        fun value(): Any? {
            skipSpace()
            if (at >= text.length) fail("unexpected end")
            return when (text[at]) {
                '{' -> obj()
                '[' -> array()
                '"' -> string()
                't' -> literal("true", true)
                'f' -> literal("false", false)
                'n' -> literal("null", null)
                else -> number()
            }
        }

        fun literal(word: String, value: Any?): Any? {
            if (!text.startsWith(word, at)) fail("expected $word")
            at += word.length
            return value
        }

        fun obj(): Map<String, Any?> {
            val result = LinkedHashMap<String, Any?>()
            at++
            skipSpace()
            if (text.getOrNull(at) == '}') { at++; return result }
            while (true) {
                skipSpace()
                if (text.getOrNull(at) != '"') fail("expected a key")
                val key = string()
                skipSpace()
                if (text.getOrNull(at) != ':') fail("expected ':'")
                at++
                result[key] = value()
                skipSpace()
                when (text.getOrNull(at)) {
                    ',' -> at++
                    '}' -> { at++; return result }
                    else -> fail("expected ',' or '}'")
                }
            }
        }

        fun array(): List<Any?> {
            val result = ArrayList<Any?>()
            at++
            skipSpace()
            if (text.getOrNull(at) == ']') { at++; return result }
            while (true) {
                result.add(value())
                skipSpace()
                when (text.getOrNull(at)) {
                    ',' -> at++
                    ']' -> { at++; return result }
                    else -> fail("expected ',' or ']'")
                }
            }
        }

        fun string(): String {
            val out = StringBuilder()
            at++
            while (true) {
                if (at >= text.length) fail("unterminated string")
                val c = text[at++]
                when (c) {
                    '"' -> return out.toString()
                    '\\' -> {
                        val escape = text.getOrNull(at++) ?: fail("unterminated escape")
                        when (escape) {
                            'n' -> out.append('\n')
                            'r' -> out.append('\r')
                            't' -> out.append('\t')
                            'b' -> out.append('\b')
                            'f' -> out.append('\u000C')
                            'u' -> {
                                if (at + 4 > text.length) fail("short \\u escape")
                                out.append(text.substring(at, at + 4).toInt(16).toChar())
                                at += 4
                            }
                            else -> out.append(escape)
                        }
                    }
                    else -> out.append(c)
                }
            }
        }

        fun number(): Any {
            val start = at
            while (at < text.length && text[at] in "+-0123456789.eE") at++
            val token = text.substring(start, at)
            if (token.length == 0) fail("unexpected '${text[at]}'")
            return token.toLongOrNull() ?: token.toDoubleOrNull() ?: fail("bad number '$token'")
        }
    }
}
