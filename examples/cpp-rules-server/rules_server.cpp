// A rules server for jhyap_kit.hooks (docs/hook-protocol.md): the Dhumbal rules in C++17,
// one JSON line in, one JSON line out, standard library only. Build and run:
//   g++ -std=c++17 -O2 -o build/rules-server examples/cpp-rules-server/rules_server.cpp
//   jhyap run --profile dhumbal -- python -m jhyap_kit.hooks -- build/rules-server
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

// What this engine plays, beyond what the kit keeps: dotted paths under "rules".
const char* DESCRIPTION = R"({"name": "dhumbal-cpp", "version": "1.0", "language": "c++", "rules": {)"
    R"("card_values": "any", "call.limit": "any", "call.inclusive": [true], "call.first_round": ["allowed"],)"
    R"( "deck.jokers": [0], "deck_runs_out": ["reshuffle"], "game_end.reaching_is_out": [false], "money": [null],)"
    R"( "throws.set": [{"min": 2, "max": 4}], "throws.run": [{"min": 3, "ace": "low"}], "throws.single": ["any"],)"
    R"( "throws.order_matters": "any", "showdown": [{"tie": "beats_caller", "winner_among_lowest": "first_after_caller"}],)"
    R"( "scoring": [{"kind": "penalty", "won_call": "each_other_hand", "beaten_call": "caller_hand_plus_penalty",)"
    R"( "beaten_penalty": 25}]}})";

// Just enough JSON: t is n(ull), b(oolean), i(nteger), s(tring), a(rray) or o(bject).
struct J {
    char t = 'n';
    long long i = 0;
    std::string s;
    std::vector<J> a;            // an array's items, or an object's values
    std::vector<std::string> k;  // an object's keys
    const J& operator[](const std::string& key) const {
        static const J none;
        for (size_t x = 0; x < k.size(); x++) if (k[x] == key) return a[x];
        return none;
    }
};

char peek(const std::string& s, size_t& p) {
    while (p < s.size() && isspace((unsigned char)s[p])) p++;
    if (p >= s.size()) throw std::runtime_error("line cut short");
    return s[p];
}

J parse(const std::string& s, size_t& p) {
    J v;
    char c = peek(s, p);
    if (c == '{' || c == '[') {
        for (v.t = c == '{' ? 'o' : 'a', p++; peek(s, p) != (c == '{' ? '}' : ']');) {
            if (c == '{') v.k.push_back(parse(s, p).s), peek(s, p), p++;  // the key and its colon
            v.a.push_back(parse(s, p));
            if (peek(s, p) == ',') p++;
        }
        p++;
    } else if (c == '"') {
        for (v.t = 's', p++; s.at(p) != '"'; p++) v.s += s[p] == '\\' ? s.at(++p) : s[p];
        p++;
    } else if (isalpha((unsigned char)c)) {  // null, true, false
        for (v.t = c == 'n' ? 'n' : 'b', v.i = c == 't'; p < s.size() && isalpha((unsigned char)s[p]);) p++;
    } else {  // a number: its integer part
        size_t n;
        v.t = 'i', v.i = std::stoll(s.substr(p), &n);
        for (p += n; p < s.size() && std::string(".eE+-0123456789").find(s[p]) != std::string::npos;) p++;
    }
    return v;
}

std::string list(const std::vector<long long>& xs) {
    std::string out = "[";
    for (size_t x = 0; x < xs.size(); x++) out += (x ? ", " : "") + std::to_string(xs[x]);
    return out + "]";
}

struct Dhumbal {
    J values, out_above;         // card_values (rank -> points), game_end.out_above
    long long limit = 0;
    std::vector<J> hands;        // each seat's cards
    std::vector<long long> scores;
    long long value(const J& cards, long long total = 0) {
        for (const J& card : cards.a) total += values[card.s.substr(0, 1)].i;
        return total;
    }
    // A single, a set of two to four of a rank, or a run of three or more of a suit, ace low.
    static std::string kind(const J& cards) {
        size_t n = cards.a.size(), low = 0;
        if (n == 1) return "single";
        bool same_rank = true, same_suit = true;
        std::vector<bool> has(13);
        for (const J& c : cards.a) {
            same_rank &= c.s[0] == cards.a[0].s[0], same_suit &= c.s[1] == cards.a[0].s[1];
            has[std::string("A23456789TJQK").find(c.s[0])] = true;
        }
        if (same_rank) return n <= 4 ? "set" : "";
        while (!has[low]) low++;
        for (size_t r = low; r < low + n; r++) if (r >= 13 || !has[r]) return "";
        return same_suit && n >= 3 ? "run" : "";
    }
    // The penalty showdown: a caller beaten (or tied) by the lowest other hand scores its hand
    // and 25; else every other seat scores its hand. A seat past out_above is out.
    std::string score(int c, const J& hv) {
        int n = (int)hv.a.size(), winner = -1;
        std::vector<long long> deltas(n), active, out;
        for (int x = 1, s = (c + 1) % n; x < n; x++, s = (c + x) % n)  // from the seat after the caller
            if (hv.a[s].t == 'i' && (winner < 0 || hv.a[s].i < hv.a[winner].i)) winner = s;
        if (hv.a[winner].i <= hv.a[c].i) deltas[c] = hv.a[c].i + 25;
        else for (int s = 0; s < n; s++) if (s != c) deltas[s] = hv.a[s].i, winner = c;
        long long lowest = -1;
        for (int s = 0; s < n; s++) {
            scores[s] += deltas[s];
            if (hv.a[s].t != 'i') continue;
            active.push_back(s);
            if (out_above.t == 'i' && scores[s] > out_above.i) out.push_back(s);
            if (lowest < 0 || scores[s] < lowest) lowest = scores[s];
        }
        if (out.size() == active.size())  // all in play over together: the lowest stay in
            for (size_t x = out.size(); x-- > 0;) if (scores[out[x]] == lowest) out.erase(out.begin() + x);
        return "{\"winner\": " + std::to_string(winner) + ", \"deltas\": " + list(deltas) +
               ", \"scores\": " + list(scores) + ", \"eliminated\": " + list(out) + "}";
    }
    std::string answer(const J& r) {
        const std::string hook = r["hook"].s;
        if (hook == "describe") return DESCRIPTION;
        if (hook == "begin_game") scores.assign(r["seats"].i, 0);
        else if (hook == "begin_hand") {  // the rules of this hand: options may change between hands
            const J& rules = r["rules"];
            values = rules["card_values"], limit = rules["call"]["limit"].i;
            out_above = rules["game_end"]["out_above"], hands = r["deal"]["hands"].a;
        } else if (hook == "refusal") {
            const J& action = r["action"];
            if (action["type"].s == "call" && value(hands.at(r["seat"].i)) > limit)
                return "{\"code\": \"call_over_limit\", \"message\": \"over " + std::to_string(limit) + "\"}";
            if (action["type"].s == "throw" && kind(action["cards"]).empty())
                return "{\"code\": \"illegal_throw\", \"message\": \"no single, set or run\"}";
        } else if (hook == "on_throw") {
            std::vector<J>& hand = hands.at(r["seat"].i).a;
            for (const J& card : r["cards"].a)
                for (size_t x = 0; x < hand.size(); x++) if (hand[x].s == card.s) { hand.erase(hand.begin() + x); break; }
            return "\"" + kind(r["cards"]) + "\"";
        } else if (hook == "on_pick") hands.at(r["seat"].i).a.push_back(r["card"]);
        else if (hook == "hand_value") return std::to_string(value(r["cards"]));
        else if (hook == "score_round") return score((int)r["caller"].i, r["hand_values"]);
        return "null";  // on_call, on_reshuffle and the rest: nothing to do
    }
};

int main() {
    Dhumbal game;
    for (std::string line; std::getline(std::cin, line);) try {
        size_t at = 0;
        std::cout << "{\"result\": " << game.answer(parse(line, at)) << "}" << std::endl;
    } catch (const std::exception& e) {
        std::cout << "{\"error\": \"" << e.what() << "\"}" << std::endl;
    }
}
