// A rules server for jhyap_kit.hooks (docs/hook-protocol.md): the EverestBuzz rules in Java,
// one JSON line in, one JSON line out. Java 17, standard library only. Build and run:
//   javac -d build examples/java-rules-server/RulesServer.java
//   jhyap run --profile everestbuzz -- python -m jhyap_kit.hooks -- java -cp build RulesServer
import java.io.*;
import java.util.*;

@SuppressWarnings("unchecked")
public class RulesServer {
    // What this engine plays, beyond what the kit keeps: dotted paths under "rules".
    static final String DESCRIPTION = """
        {"name": "everestbuzz-java", "version": "1.0", "language": "java", "rules": {
          "card_values": "any", "call.limit": "any", "call.inclusive": [true],
          "call.first_round": ["allowed"], "deck.jokers": [0], "deck_runs_out": ["reshuffle"],
          "throws.set": [{"min": 2, "max": 4}], "throws.run": [{"min": 3, "ace": "low"}],
          "throws.order_matters": "any", "throws.single": ["any"],
          "showdown": [{"tie": "beats_caller", "winner_among_lowest": "first_after_caller"}],
          "scoring": [{"kind": "transfer", "won_call": "each_other_hand",
                       "beaten_call": "all_hands", "beaten_penalty": 0}],
          "money": [null]}}""";
    static final String RANKS = "A23456789TJQK";

    Map<String, Object> values;            // card_values: rank -> points
    long limit;                            // call.limit
    List<List<String>> hands = new ArrayList<>();
    long[] scores = new long[0];

    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, "UTF-8");
        RulesServer server = new RulesServer();
        for (String line; (line = in.readLine()) != null; ) {
            String answer;
            try {
                answer = "{\"result\": " + server.answer((Map<?, ?>) new Json(line).value()) + "}";
            } catch (RuntimeException e) {
                answer = "{\"error\": " + Json.quote(String.valueOf(e)) + "}";
            }
            out.println(answer);
        }
    }

    String answer(Map<?, ?> r) {
        switch ((String) r.get("hook")) {
            case "describe": return DESCRIPTION.replace('\n', ' ');
            case "begin_game": scores = new long[((Long) r.get("seats")).intValue()]; return "null";
            case "begin_hand":  // the rules of this hand: options may change between hands
                Map<?, ?> rules = (Map<?, ?>) r.get("rules");
                values = (Map<String, Object>) rules.get("card_values");
                limit = (Long) ((Map<?, ?>) rules.get("call")).get("limit");
                hands.clear();
                for (Object hand : (List<?>) ((Map<?, ?>) r.get("deal")).get("hands"))
                    hands.add(new ArrayList<>((List<String>) hand));
                return "null";
            case "refusal": {
                Map<?, ?> action = (Map<?, ?>) r.get("action");
                if (action.get("type").equals("call") && value(hands.get(seat(r))) > limit)
                    return "{\"code\": \"call_over_limit\", \"message\": \"over " + limit + "\"}";
                if (action.get("type").equals("throw") && kind((List<String>) action.get("cards")) == null)
                    return "{\"code\": \"illegal_throw\", \"message\": \"no single, set or run\"}";
                return "null";
            }
            case "on_throw": {
                List<String> cards = (List<String>) r.get("cards");
                for (String card : cards) hands.get(seat(r)).remove(card);
                return Json.quote(kind(cards));
            }
            case "on_pick": hands.get(seat(r)).add((String) r.get("card")); return "null";
            case "hand_value": return Long.toString(value((List<String>) r.get("cards")));
            case "score_round": return score(r.get("caller"), (List<?>) r.get("hand_values"));
            default: return "null";  // on_call, on_reshuffle: nothing to do
        }
    }

    static int seat(Map<?, ?> r) { return ((Long) r.get("seat")).intValue(); }

    long value(List<String> cards) {
        long total = 0;
        for (String card : cards) total += (Long) values.get(card.substring(0, 1));
        return total;
    }

    // A single, a set of two to four of a rank, or a run of three or more of a suit, ace low.
    static String kind(List<String> cards) {
        int n = cards.size();
        if (n == 1) return "single";
        int[] ranks = new int[n];
        boolean sameRank = true, sameSuit = true;
        for (int i = 0; i < n; i++) {
            String c = cards.get(i);
            ranks[i] = RANKS.indexOf(c.charAt(0));
            sameRank &= c.charAt(0) == cards.get(0).charAt(0);
            sameSuit &= c.charAt(1) == cards.get(0).charAt(1);
        }
        if (sameRank && n <= 4) return "set";
        Arrays.sort(ranks);
        for (int i = 1; i < n; i++) if (ranks[i] != ranks[0] + i) return null;
        return sameSuit && n >= 3 ? "run" : null;
    }

    // The transfer showdown: a caller beaten (or tied) by the lowest other hand pays all hands
    // to the first such seat after the caller; else each other seat pays the caller its hand.
    String score(Object caller, List<?> hv) {
        int n = hv.size(), c = ((Long) caller).intValue(), winner = -1;
        long[] deltas = new long[n];
        for (int i = 1; i < n; i++) {
            int s = (c + i) % n;
            if (hv.get(s) != null && (winner < 0 || (Long) hv.get(s) < (Long) hv.get(winner))) winner = s;
        }
        long all = 0, mine = (Long) hv.get(c);
        for (Object v : hv) all += v == null ? 0 : (Long) v;
        if ((Long) hv.get(winner) <= mine) { deltas[c] = -all; deltas[winner] = all; }
        else { winner = c; for (int s = 0; s < n; s++) if (s != c && hv.get(s) != null) { deltas[s] = -(Long) hv.get(s); deltas[c] += (Long) hv.get(s); } }
        for (int s = 0; s < n; s++) scores[s] += deltas[s];
        return "{\"winner\": " + winner + ", \"deltas\": " + Arrays.toString(deltas)
            + ", \"scores\": " + Arrays.toString(scores) + ", \"eliminated\": []}";
    }

    // Just enough JSON: objects, arrays, strings (simple escapes), integers, true/false/null.
    static class Json {
        final String s; int i;
        Json(String s) { this.s = s; }
        Object value() {
            while (Character.isWhitespace(s.charAt(i))) i++;
            char c = s.charAt(i);
            if (c == '{') { Map<String, Object> m = new LinkedHashMap<>(); i++;
                while (next() != '}') { String k = (String) value(); next(); i++; m.put(k, value()); if (next() == ',') i++; }
                i++; return m; }
            if (c == '[') { List<Object> l = new ArrayList<>(); i++;
                while (next() != ']') { l.add(value()); if (next() == ',') i++; }
                i++; return l; }
            if (c == '"') { StringBuilder b = new StringBuilder();
                for (i++; s.charAt(i) != '"'; i++) b.append(s.charAt(i) == '\\' ? s.charAt(++i) : s.charAt(i));
                i++; return b.toString(); }
            for (String word : new String[] {"true", "false", "null"})
                if (s.startsWith(word, i)) { i += word.length(); return word.equals("null") ? null : word.equals("true"); }
            int start = i;
            while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) i++;
            String number = s.substring(start, i);
            return number.matches("-?\\d+") ? (Object) Long.parseLong(number) : (Object) Double.parseDouble(number);
        }
        char next() { while (Character.isWhitespace(s.charAt(i))) i++; return s.charAt(i); }
        static String quote(String text) {
            return text == null ? "null" : "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
        }
    }
}
